import Foundation

/// `Benchmarks/results/checker.md` holds one section per run kind (the connection model;
/// the model beside SPIN, one section per set of bounds); a run replaces its own section
/// and keeps the others as they were recorded.
///
/// ```swift
/// try ResultsSection.write("spin-model 60 60 8", "## Beside SPIN\n…")
/// ```
enum ResultsSection {
    static var file: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("results/checker.md")
    }

    static func write(_ name: String, _ body: String) throws {
        let old = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
        var sections: [(name: String, body: String)] = []
        var rest = old[...]
        while let begin = rest.range(of: "<!-- begin "),
            let close = rest.range(of: " -->", range: begin.upperBound..<rest.endIndex)
        {
            let found = String(rest[begin.upperBound..<close.lowerBound])
            guard let end = rest.range(of: end(found), range: close.upperBound..<rest.endIndex) else { break }
            sections.append((found, String(rest[close.upperBound..<end.lowerBound])))
            rest = rest[end.upperBound...]
        }
        if sections.isEmpty, let title = old.range(of: "# Checker benchmark\n") {
            // A file from before the sections: all of it is the connection model's.
            sections.append(
                ("connection-model", "\n" + old[title.upperBound...].trimmingCharacters(in: .newlines) + "\n"))
        }
        let fresh = "\n" + body.trimmingCharacters(in: .newlines) + "\n"
        if let index = sections.firstIndex(where: { $0.name == name }) {
            sections[index].body = fresh
        } else {
            sections.append((name, fresh))
        }
        // The connection model first, then the SPIN comparisons in the order they were first recorded.
        sections.sort { ($0.name == "connection-model" ? 0 : 1) < ($1.name == "connection-model" ? 0 : 1) }
        var text = "# Checker benchmark\n"
        for section in sections { text += "\n<!-- begin \(section.name) -->" + section.body + end(section.name) + "\n" }
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: file, atomically: true, encoding: .utf8)
    }

    private static func end(_ name: String) -> String { "<!-- end \(name) -->" }
}
