import Foundation
import LiveConnectionSimulator

/// A trace read from disk, with errors that name the file and the line.
struct TraceFile {
    let path: String
    let text: String
    let trace: Trace

    /// Reads and parses `path`; a file that cannot be read or parsed is a ``TraceFileError``.
    init(path: String) throws(TraceFileError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .unreadable(path, Self.whyUnreadable(path))
        }
        guard let text = String(data: data, encoding: .utf8) else { throw .notUTF8(path) }
        self.path = path
        self.text = text
        do {
            trace = try Trace(parsing: text)
        } catch {
            throw .malformed(path, error)
        }
    }

    /// Why `contents(atPath:)` gave nothing, in words.
    private static func whyUnreadable(_ path: String) -> String {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return "no such file" }
        return isDirectory.boolValue ? "is a directory, not a trace file" : "cannot read the file (permission denied?)"
    }
}

/// Why a trace file could not be used; one line, `path:line: reason` like a compiler.
enum TraceFileError: Error, CustomStringConvertible {
    case unreadable(String, String)
    case notUTF8(String)
    case malformed(String, TraceError)

    var description: String {
        switch self {
        case .unreadable(let path, let reason): "\(clipped(path, to: 200)): \(reason)"
        case .notUTF8(let path): "\(clipped(path, to: 200)): not UTF-8 text"
        // The message may quote the offending line, which may be megabytes long.
        case .malformed(let path, let error):
            "\(clipped(path, to: 200)):\(error.line): \(clipped(error.message, to: 200))"
        }
    }
}
