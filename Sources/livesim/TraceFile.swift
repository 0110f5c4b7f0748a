import Foundation
import LiveConnectionSimulator

/// A trace read from disk, with errors that name the file and the line.
struct TraceFile {
    let path: String
    let text: String
    let trace: Trace

    /// Reads and parses `path`; a file that cannot be read or parsed is a ``TraceFileError``.
    init(path: String) throws(TraceFileError) {
        guard let data = FileManager.default.contents(atPath: path) else { throw .unreadable(path) }
        guard let text = String(data: data, encoding: .utf8) else { throw .notUTF8(path) }
        self.path = path
        self.text = text
        do {
            trace = try Trace(parsing: text)
        } catch {
            throw .malformed(path, error)
        }
    }
}

/// Why a trace file could not be used; one line, `path:line: reason` like a compiler.
enum TraceFileError: Error, CustomStringConvertible {
    case unreadable(String)
    case notUTF8(String)
    case malformed(String, TraceError)

    var description: String {
        switch self {
        case .unreadable(let path): "\(path): cannot read the file"
        case .notUTF8(let path): "\(path): not UTF-8 text"
        case .malformed(let path, let error): "\(path):\(error.line): \(error.message)"
        }
    }
}
