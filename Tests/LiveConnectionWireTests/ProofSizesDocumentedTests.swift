import Foundation
import PackageFiles
import TestScheduling
import Testing

/// docs/ci.md's table of proofs with two sizes is the list the tests use (``TestScale/proofs``),
/// and no proof's debug instance is empty: the maintainers' rule for the README's debug
/// `swift test` is a smaller instance of each proof, never none (issue 30).
///
/// It lives here because this target sees both the support target and the package's files.
@Suite("Proof sizes are documented")
struct ProofSizesDocumentedTests {
    /// A row of the table: test, unit, debug size, full size (`nil`: all).
    struct Row: Equatable, CustomStringConvertible {
        var test: String
        var unit: String
        var debug: Int?
        var full: Int?
        var description: String {
            "\(test) | \(unit) | \(debug.map(String.init) ?? "all") | \(full.map(String.init) ?? "all")"
        }
    }

    /// The rows of the table under the "Proofs with two sizes" heading of docs/ci.md.
    static func documentedRows() throws -> [Row] {
        let page = try PackageFiles.text("docs/ci.md")
        let section = try #require(
            page.components(separatedBy: "\n## Proofs with two sizes\n").dropFirst().first,
            "docs/ci.md has no \"## Proofs with two sizes\" section")
        let body = section.components(separatedBy: "\n## ").first ?? section
        return body.split(separator: "\n").compactMap { line -> Row? in
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 4, cells[0].hasPrefix("`"), cells[0].hasSuffix("`") else { return nil }
            return Row(
                test: String(cells[0].dropFirst().dropLast()), unit: cells[1], debug: size(cells[2]),
                full: size(cells[3]))
        }
    }

    /// "10,000" → 10000, "all" → nil.
    static func size(_ cell: String) -> Int? { Int(cell.replacingOccurrences(of: ",", with: "")) }

    @Test("docs/ci.md's table lists each proof with the sizes the tests use, in order")
    func tableMatchesTheCode() throws {
        let documented = try Self.documentedRows()
        let used = TestScale.proofs.map { Row(test: $0.test, unit: $0.unit, debug: $0.debug, full: $0.full) }
        #expect(
            documented == used,
            "docs/ci.md:\n\(documented.map(\.description).joined(separator: "\n"))\ncode:\n\(used.map(\.description).joined(separator: "\n"))"
        )
    }

    @Test("every proof runs in the debug run, smaller than in the release step")
    func noProofIsEmptyInDebug() {
        for proof in TestScale.proofs {
            #expect(proof.debug > 0, "\(proof.test) runs nothing in the debug swift test")
            #expect(proof.full.map { $0 > proof.debug } ?? true, "\(proof.test): the full size is not larger")
        }
    }

    @Test("each listed test exists, and no test decides its size outside TestScale")
    func everyProofIsATest() throws {
        for proof in TestScale.proofs {
            let parts = proof.test.split(separator: "/")
            let target = try #require(parts.first.map(String.init))
            let function = try #require(parts.last?.split(separator: ".").last.map(String.init))
            let sources = PackageFiles.swiftSources(in: PackageFiles.url("Tests/\(target)"))
            #expect(
                sources.contains { $0.text.contains("func \(function)(") }, "no func \(function) in Tests/\(target)")
        }
        // A test that read the build or the environment itself would escape the table.
        let readsTheBuild = "TestScale" + ".isFull"
        let readsTheEnvironment = "\"LIVESIM_" + "TEST_SCALE\""
        for folder in try PackageFiles.folders(in: "Tests") where folder.lastPathComponent != "TestScheduling" {
            for source in PackageFiles.swiftSources(in: folder) {
                #expect(!source.text.contains(readsTheBuild), "\(source.name) reads \(readsTheBuild)")
                #expect(
                    !source.text.contains(readsTheEnvironment), "\(source.name) reads \(readsTheEnvironment) itself")
            }
        }
    }
}
