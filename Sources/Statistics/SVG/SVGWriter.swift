import Foundation

/// The few SVG elements the charts need, written as text with escaped labels.
///
/// ```swift
/// var svg = SVGWriter(width: 100, height: 50)
/// svg.line(0, 0, 100, 50, stroke: "#000000")
/// svg.text("a < b", x: 50, y: 25, anchor: "middle", size: 12)
/// let document = svg.finish()
/// ```
///
/// Coordinates are printed with two decimals so that output is byte-for-byte stable.
public struct SVGWriter: Sendable {
    private var body: [String] = []
    /// The document size in user units.
    public let width: Double
    /// The document height in user units.
    public let height: Double

    /// An empty document of the given size.
    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    /// A straight line from (x1, y1) to (x2, y2).
    public mutating func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, stroke: String) {
        body.append(
            "<line x1=\"\(n(x1))\" y1=\"\(n(y1))\" x2=\"\(n(x2))\" y2=\"\(n(y2))\" stroke=\"\(stroke)\" stroke-width=\"1\"/>"
        )
    }

    /// A rectangle; negative sizes are drawn as empty.
    public mutating func rect(
        x: Double, y: Double, width: Double, height: Double, fill: String, stroke: String, opacity: Double = 1
    ) {
        let opacityText = opacity < 1 ? " fill-opacity=\"\(n(opacity))\"" : ""
        body.append(
            "<rect x=\"\(n(x))\" y=\"\(n(y))\" width=\"\(n(max(0, width)))\" height=\"\(n(max(0, height)))\" fill=\"\(fill)\" stroke=\"\(stroke)\"\(opacityText)/>"
        )
    }

    /// An open polyline through the points (nothing for no points).
    public mutating func polyline(_ points: [(Double, Double)], stroke: String) {
        guard !points.isEmpty else { return }
        let list = points.map { "\(n($0.0)),\(n($0.1))" }.joined(separator: " ")
        body.append("<polyline points=\"\(list)\" fill=\"none\" stroke=\"\(stroke)\" stroke-width=\"1.8\"/>")
    }

    /// A text label, escaped, optionally rotated about its anchor.
    public mutating func text(
        _ content: String, x: Double, y: Double, anchor: String, size: Double, weight: String = "normal",
        rotate: Double? = nil
    ) {
        let transform = rotate.map { " transform=\"rotate(\(n($0)) \(n(x)) \(n(y)))\"" } ?? ""
        body.append(
            "<text x=\"\(n(x))\" y=\"\(n(y))\" text-anchor=\"\(anchor)\" font-size=\"\(n(size))\" font-weight=\"\(weight)\"\(transform)>\(Self.escape(content))</text>"
        )
    }

    /// The document: header, white background, the elements in order.
    public func finish() -> String {
        var lines = [
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(n(width))\" height=\"\(n(height))\" viewBox=\"0 0 \(n(width)) \(n(height))\" font-family=\"Helvetica, Arial, sans-serif\">",
            "<rect x=\"0\" y=\"0\" width=\"\(n(width))\" height=\"\(n(height))\" fill=\"#ffffff\"/>",
        ]
        lines += body
        lines.append("</svg>")
        return lines.joined(separator: "\n") + "\n"
    }

    private func n(_ value: Double) -> String { value.formatted(digits: 2) }

    /// Escapes the characters XML gives meaning to, for SVG text and attribute values.
    ///
    /// ```swift
    /// SVGWriter.escape("p < 0.05 & \"fair\"")   // p &lt; 0.05 &amp; &quot;fair&quot;
    /// ```
    ///
    /// The package's one XML escaper: the backoff plots and the simulator's timeline pictures
    /// both write SVG through it. It is not shared with the other two escapers because they
    /// write other languages: `String.jsonQuoted` (LiveConnection) writes a JSON string literal
    /// (backslash escapes, `\u00XX`), and `TraceToken.quoted` (the simulator) the trace format's
    /// own quoting (backslash escapes, `\u{…}`, and the line separators a terminal would break
    /// on); XML needs entities instead, and leaves control characters and backslashes alone.
    package static func escape(_ text: String) -> String {
        text.reduce(into: "") { result, character in result += entities[character] ?? String(character) }
    }

    /// The characters XML gives meaning to, as the entities that stand for them.
    private static let entities: [Character: String] = ["&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;"]
}
