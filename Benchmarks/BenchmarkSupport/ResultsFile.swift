public import Foundation

/// A file under `Benchmarks/results/`, written one named section at a time.
///
/// ```swift
/// let results = ResultsFile("simulator.md", title: "# Simulator benchmarks")
/// try results.write(section: "run", lines.joined(separator: "\n"))
/// ```
///
/// A run replaces only its own section, the text between `<!-- begin NAME -->` and
/// `<!-- end NAME -->`, and keeps everything else as it was: the before-and-after comparisons
/// written by hand under a run's figures are the history of a change, and rewriting the whole
/// file dropped them (a session had to restore them by hand after every run). A section not
/// yet in the file is added at its end; a missing file starts with `title`.
public struct ResultsFile: Sendable {
    public let url: URL
    let title: String

    /// `name` is the file's name in `Benchmarks/results/`; `filePath` locates that folder
    /// from the calling benchmark's source (`Benchmarks/NAME/main.swift`), so the figures
    /// land in the repository wherever the binary runs from.
    public init(_ name: String, title: String, filePath: String = #filePath) {
        url = URL(fileURLWithPath: filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("results").appendingPathComponent(name)
        self.title = title
    }

    /// An explicit path (a benchmark's `--output`), relative to the working directory.
    public init(path: String, title: String) {
        url = URL(fileURLWithPath: path)
        self.title = title
    }

    public var path: String { url.path }

    /// Replaces the section named `name` with `body`, leaving the rest of the file unchanged.
    public func write(section name: String, _ body: String) throws {
        let old = (try? String(contentsOf: url, encoding: .utf8)) ?? title + "\n"
        try ResultsFile.replacing(section: name, with: body, in: old)
            .write(to: url, atomically: true, encoding: .utf8)
    }

    /// `text` with the section `name` holding `body` (exposed for the benchmarks' own checks).
    public static func replacing(section name: String, with body: String, in text: String) -> String {
        let begin = "<!-- begin \(name) -->"
        let end = "<!-- end \(name) -->"
        let block = begin + "\n" + body.trimmingCharacters(in: .newlines) + "\n" + end
        if let start = text.range(of: begin), let stop = text.range(of: end, range: start.upperBound..<text.endIndex) {
            return text.replacingCharacters(in: start.lowerBound..<stop.upperBound, with: block)
        }
        return text.trimmingCharacters(in: .newlines) + "\n\n" + block + "\n"
    }
}
