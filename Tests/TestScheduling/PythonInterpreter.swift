public import Foundation

/// The `python3` on the test process's `PATH`, resolved once, for the tests' Python peers.
///
/// ```swift
/// let process = Process()
/// process.executableURL = PythonInterpreter.executable
/// process.arguments = [script.path, mode]
/// ```
///
/// The peers used to be started as `/usr/bin/env python3 …` each time. Where `python3` is a
/// version manager's shim (pyenv's is a shell script that runs `pyenv exec`), every start
/// paid for the shim too: about 70 ms of CPU, more than the interpreter's own start, over
/// dozens of peers per debug `swift test`. The interpreter is the same one either way: the
/// one the shim would have run, as it reports itself (`sys.executable`).
public enum PythonInterpreter {
    /// The interpreter itself, or `/usr/bin/env` when it cannot be asked (then ``arguments(_:)``
    /// names `python3` first, and a missing Python fails where it did before).
    public static let executable: URL = resolved ?? URL(fileURLWithPath: "/usr/bin/env")

    /// The arguments that run `python3 arguments…` with ``executable``.
    public static func arguments(_ arguments: [String]) -> [String] {
        resolved == nil ? ["python3"] + arguments : arguments
    }

    private static let resolved: URL? = {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "import sys; print(sys.executable)"]
        process.standardInput = FileHandle.nullDevice
        guard let run = try? process.runCapturing(within: .seconds(60)), run.exit.succeeded else { return nil }
        let path = String(decoding: run.standardOutput, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard path.hasPrefix("/"), FileManager.default.isExecutableFile(atPath: path) else { return nil }
        return URL(fileURLWithPath: path)
    }()
}
