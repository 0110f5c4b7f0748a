/// A history that cannot be read or written: the file, the line (from 1) and the reason.
///
/// ```swift
/// // "run.jsonl:7: \"conn\" is missing"
/// print(error)
/// ```
public struct WireHistoryError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Why one line cannot be read, before the file and line are known.
    public struct Reason: Error, Hashable, Sendable {
        public var text: String
        public init(_ text: String) { self.text = text }
    }

    public var file: String
    /// The line (from 1), or nil for the file as a whole (cannot be opened, written, empty).
    public var line: Int?
    public var reason: String

    public init(file: String, line: Int?, reason: String) {
        self.file = file
        self.line = line
        self.reason = reason
    }

    public var description: String { "\(file)\(line.map { ":\($0)" } ?? ""): \(reason)" }
}
