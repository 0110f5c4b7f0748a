/// Where two traces (or two runs written as traces) first disagree.
///
/// ```swift
/// if let divergence = TraceDivergence(between: left, and: right) {
///     print(divergence.render(leftName: "a.trace", rightName: "b.trace"))
/// }
/// // traces diverge at line 23 (observed, virtual time 3000ms):
/// //     21    2500ms phase open
/// //     22    3000ms input failed g2 "ECONNRESET"
/// //   - 23    3000ms phase waiting 84ms reason="error ECONNRESET"
/// //   + 23    3000ms phase open
/// ```
///
/// Line by line, because the format is built for it: one fact per line, in a fixed order,
/// so the first differing line is where the runs (or their inputs) part ways, and the
/// lines before it are what both did.
public struct TraceDivergence: Hashable, Sendable {
    /// The 1-based number of the first line that differs.
    public var line: Int
    /// The section it is in: `header`, `schedule` or `observed` (on the left side).
    public var section: String
    /// The left and right text of that line; `nil` when that side has ended.
    public var left: String?
    public var right: String?
    /// The lines before it, which both sides share, with their numbers (at most `context`).
    public var before: [NumberedLine]

    /// A line of a trace and its 1-based number.
    public struct NumberedLine: Hashable, Sendable {
        public var number: Int
        public var text: String
    }

    /// The first difference between two trace texts, or `nil` if they are identical line for line.
    public init?(between left: String, and right: String, context: Int = 3) {
        let leftLines = Trace.splitLines(left)
        let rightLines = Trace.splitLines(right)
        var index = 0
        while index < leftLines.count, index < rightLines.count, leftLines[index] == rightLines[index] { index += 1 }
        guard index < leftLines.count || index < rightLines.count else { return nil }
        line = index + 1
        self.left = index < leftLines.count ? leftLines[index] : nil
        self.right = index < rightLines.count ? rightLines[index] : nil
        let first = max(0, index - context)
        before = (first..<index).map { NumberedLine(number: $0 + 1, text: leftLines[$0]) }
        let scanned = leftLines.count > index ? leftLines[..<(index + 1)] : leftLines[...]
        if scanned.contains("observed:") {
            section = "observed"
        } else if scanned.contains("schedule:") && self.left != "schedule:" {
            section = "schedule"
        } else {
            section = "header"
        }
    }

    /// The virtual time at the start of the differing line, if it has one (schedule and observed lines do).
    public var virtualTime: Duration? {
        guard section != "header" else { return nil }
        for text in [left, right].compactMap({ $0 }) {
            if let word = text.split(separator: " ").first, let time = try? TraceToken.duration(String(word)) {
                return time
            }
        }
        return nil
    }

    /// A few lines for a terminal: the shared context, then `-` left and `+` right.
    public func render(leftName: String, rightName: String) -> String {
        var where_ = section
        if let time = virtualTime { where_ += ", virtual time \(time.traceFormatted)" }
        var lines = ["traces diverge at line \(line) (\(where_)):"]
        let width = String(line).count
        func numbered(_ number: Int) -> String {
            String(repeating: " ", count: width - String(number).count) + String(number)
        }
        for line in before { lines.append("    \(numbered(line.number))  \(line.text)") }
        lines.append("  - \(numbered(line))  \(left ?? "(end of \(leftName))")")
        lines.append("  + \(numbered(line))  \(right ?? "(end of \(rightName))")")
        lines.append("(- \(leftName), + \(rightName))")
        return lines.joined(separator: "\n")
    }
}
