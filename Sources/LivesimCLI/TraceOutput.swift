import Foundation
import LiveConnectionSimulator

/// Where a command writes the traces it finds, and the rule that nothing is lost: an existing
/// trace (for instance a committed one in `Traces/`) is never replaced unless `--overwrite`
/// says so; the new trace gets the next free name, `NAME-2.trace`, `NAME-3.trace`, ….
///
/// By default traces go to `.livesim/traces` (`TraceLibrary.scratchDirectory`), which the test suite
/// does not replay and git does not see: an experiment (`explore --variant X`) must not
/// change `swift test`'s verdict or `git status`. Promoting a trace to a regression is a
/// deliberate step (`--traces Traces`, or moving the file there; docs/trace-format.md).
struct TraceOutput: Sendable {
    var directory: String
    var overwrite: Bool

    /// Reads `option DIR` (default `TraceLibrary.scratchDirectory`) and `--overwrite`.
    init(_ arguments: inout Arguments, option: String) throws(ArgumentError) {
        directory = try arguments.option(option) ?? TraceLibrary.scratchDirectory
        overwrite = try arguments.flag("--overwrite")
        guard !directory.isEmpty else { throw .invalidValue(option, directory, expected: "a directory") }
    }

    /// Writes `trace` as `name` in the directory (created if needed); returns the path written.
    /// The same bytes already under that name count as written.
    func write(_ trace: Trace, named name: String) throws -> String {
        let library = TraceLibrary(directory: URL(fileURLWithPath: directory))
        let text = trace.encode()
        let chosen = overwrite ? name : Self.freeName(for: name, text: text, in: directory)
        let url = try library.write(trace, named: chosen)
        return directory == "." ? url.lastPathComponent : "\(directory)/\(url.lastPathComponent)"
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
