import Foundation

/// The machine a benchmark ran on, as every results file records it.
///
/// ```swift
/// let machine = BenchmarkMachine.current
/// lines += machine.markdown   // "- date: …", "- system: …", "- CPU: …", "- load average …"
/// ```
///
/// One description for every benchmark executable, so the results files agree on what
/// they say about where they were measured (the machines here are shared: the load
/// average is part of the figure).
public struct BenchmarkMachine: Sendable {
    public let date: String
    /// `uname -srm`.
    public let system: String
    /// Processors this process may use (`nproc`), and all of them (`nproc --all`).
    public let processors: String
    public let allProcessors: String
    public let cpu: String
    /// The 1, 5 and 15 minute load averages when the description was taken.
    public let load: String

    public static var current: BenchmarkMachine {
        let cpu = shell("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2")
        return BenchmarkMachine(
            date: ISO8601DateFormatter().string(from: Date()),
            system: shell("uname -srm"),
            processors: shell("nproc"),
            allProcessors: shell("nproc --all"),
            cpu: cpu.isEmpty ? "unknown" : cpu,
            load: shell("cut -d' ' -f1-3 /proc/loadavg"))
    }

    /// Markdown list lines for the top of a results file.
    public var markdown: [String] {
        [
            "- date: \(date)",
            "- system: \(system), \(processors) of \(allProcessors) processors, \(cpu)",
            "- load average (the machine is shared): \(load)",
        ]
    }
}

/// Runs `command` with `/bin/sh -c` and returns its standard output, trimmed ("" if it
/// could not run). For describing the machine and driving peers, never for timing.
public func shell(_ command: String) -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", command]
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    do { try process.run() } catch { return "" }
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
}
