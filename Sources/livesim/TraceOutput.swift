import Foundation
import LiveConnectionSimulator

/// Where a command writes the traces it finds, and the rule that nothing is lost: an existing
/// trace (for instance a committed one in `Traces/`) is never replaced unless `--overwrite`
/// says so; the new trace gets the next free name, `NAME-2.trace`, `NAME-3.trace`, ….
///
/// By default traces go to ``scratchDirectory`` (`.livesim/traces`), which the test suite
/// does not replay and git does not see: an experiment (`explore --variant X`) must not
/// change `swift test`'s verdict or `git status`. Promoting a trace to a regression is a
/// deliberate step (`--traces Traces`, or moving the file there; docs/trace-format.md).
struct TraceOutput: Sendable {
    /// The default directory: inside `.livesim/`, which ignores itself (``ignoreFileText``).
    static let scratchDirectory = ".livesim/traces"
    /// The `.gitignore` written into `.livesim/`: everything in it, itself included, is
    /// ignored, so no user has to edit their own `.gitignore` first.
    static let ignoreFileText = "# written by livesim: scratch traces, never committed\n*\n"

    var directory: String
    var overwrite: Bool

    /// Reads `option DIR` (default ``scratchDirectory``) and `--overwrite`.
    init(_ arguments: inout Arguments, option: String) throws(ArgumentError) {
        directory = try arguments.option(option) ?? Self.scratchDirectory
        overwrite = try arguments.flag("--overwrite")
        guard !directory.isEmpty else { throw .invalidValue(option, directory, expected: "a directory") }
    }

    /// Writes `trace` as `name` in the directory (created if needed); returns the path written.
    /// The same bytes already under that name count as written.
    func write(_ trace: Trace, named name: String) throws -> String {
        try Self.ignoreScratch(in: directory)
        let library = TraceLibrary(directory: URL(fileURLWithPath: directory))
        let text = trace.encode()
        let chosen = overwrite ? name : Self.freeName(for: name, text: text, in: directory)
        let url = try library.write(trace, named: chosen)
        return directory == "." ? url.lastPathComponent : "\(directory)/\(url.lastPathComponent)"
    }

    /// When `directory` lies in a `.livesim` folder, makes sure that folder holds the
    /// `.gitignore` that hides it (an existing one is left as it is).
    static func ignoreScratch(in directory: String) throws {
        let components = (directory as NSString).pathComponents
        guard let index = components.firstIndex(of: ".livesim") else { return }
        let scratch = NSString.path(withComponents: Array(components[...index]))
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        let ignore = (scratch as NSString).appendingPathComponent(".gitignore")
        guard !FileManager.default.fileExists(atPath: ignore) else { return }
        try ignoreFileText.write(toFile: ignore, atomically: true, encoding: .utf8)
    }

    /// `name` if nothing (or the same text) is there, else the first free `stem-N.ext`.
    static func freeName(for name: String, text: String, in directory: String) -> String {
        let stem = (name as NSString).deletingPathExtension
        let ext = (name as NSString).pathExtension
        var candidate = name
        var number = 1
        while true {
            let path = (directory as NSString).appendingPathComponent(candidate)
            guard let existing = FileManager.default.contents(atPath: path) else { return candidate }
            if existing == Data(text.utf8) { return candidate }
            number += 1
            candidate = "\(stem)-\(number)" + (ext.isEmpty ? "" : ".\(ext)")
        }
    }
}
