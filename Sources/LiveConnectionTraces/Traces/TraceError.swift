/// Why a text is not a trace this build can read; every case names the line.
///
/// ```swift
/// do {
///     let trace = try Trace(parsing: text)
/// } catch {
///     print("trace.txt:\(error.line): \(error)")   // "trace.txt:7: line 7: unknown action 'rest' …"
/// }
/// ```
///
/// Parsing never traps: any text, however broken, ends in a trace or in one of these.
public enum TraceError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A line that does not parse: its number (1-based), its text, and what was wrong.
    case malformedLine(number: Int, text: String, reason: String)
    /// The first line names a format version this build does not read.
    case unsupportedVersion(found: String, line: Int)
    /// A required header key never appeared; `line` is where the header ended.
    case missingHeader(key: String, line: Int)

    /// The 1-based line the error is about.
    public var line: Int {
        switch self {
        case .malformedLine(let number, _, _): number
        case .unsupportedVersion(_, let line): line
        case .missingHeader(_, let line): line
        }
    }

    /// What is wrong, without the line number (for `file:line: message` output).
    public var message: String {
        switch self {
        case .malformedLine(_, let text, let reason):
            "\(reason): \(TraceToken.quoted(text))"
        case .unsupportedVersion(let found, _):
            "unsupported trace format version '\(found)' (this build reads version \(Trace.formatVersion))"
        case .missingHeader(let key, _):
            "the header has no '\(key):' line"
        }
    }

    public var description: String { "line \(line): \(message)" }
}

/// A line-level problem, before the parser attaches the line's number and text.
struct LineProblem: Error {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}
