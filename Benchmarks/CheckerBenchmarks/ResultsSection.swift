import Foundation

/// `Benchmarks/results/checker.md` holds one section per mode (the connection model, the
/// model beside SPIN); a run replaces its own section and keeps the others as recorded.
///
/// ```swift
/// try ResultsSection.write("spin-model", "## Beside SPIN\n…")
/// ```
enum ResultsSection {
    /// Sections in the order the file shows them.
    static let order = ["connection-model", "spin-model"]

    static var file: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("results/checker.md")
    }

    static func write(_ name: String, _ body: String) throws {
        precondition(order.contains(name), "unknown section \(name)")
        let old = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
        var sections: [String: String] = [:]
        for section in order {
            if let range = old.range(of: begin(section)), let end = old.range(of: end(section), range: range.upperBound..<old.endIndex) {
                sections[section] = String(old[range.upperBound..<end.lowerBound])
            }
        }
        sections[name] = "\n" + body.trimmingCharacters(in: .newlines) + "\n"
        var text = "# Checker benchmark\n"
        for section in order {
            guard let body = sections[section] else { continue }
            text += "\n" + begin(section) + body + end(section) + "\n"
        }
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: file, atomically: true, encoding: .utf8)
    }

    private static func begin(_ name: String) -> String { "<!-- \(name): written by CheckerBenchmarks -->" }
    private static func end(_ name: String) -> String { "<!-- end \(name) -->" }
}
