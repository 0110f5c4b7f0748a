import Foundation
import PackageFiles
import Testing

/// docs/architecture.md's "Where things live" table is a claim about Package.swift: every
/// module has its row, no row names a module that is gone, each row's "depends on" is the
/// target's dependency list, and imports go one way (a row depends only on rows above it).
///
/// Why a test: the table is how a reader decides which target a file belongs in, and targets
/// are split, added and rewired (issue 29); a row that drifts from the manifest misleads that
/// reader silently. The support targets under Tests/ and Benchmarks/, the test targets, the
/// benchmark executables and the system libraries (`COpenSSL`, `CZlib`) have no row, as the
/// section says; the system libraries appear in "depends on" like any module.
@Suite("The documented module table")
struct ArchitectureTableTests {
    /// One row of the table.
    struct Row: CustomStringConvertible {
        var line: Int
        var module: String
        var dependencies: [String]
        var description: String { "architecture.md:\(line) `\(module)`" }
    }

    static let heading = "## Where things live"

    /// The table's rows, in order.
    static func rows() throws -> [Row] {
        let lines = try PackageFiles.text("docs/architecture.md").split(
            separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(of: Substring(heading)) else { return [] }
        var rows: [Row] = []
        var inTable = false
        for index in (start + 1)..<lines.count {
            let line = lines[index].trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("## ") { break }
            guard line.hasPrefix("|") else {
                if inTable { break }
                continue
            }
            inTable = true
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 3, let module = cells.first?.firstMatch(of: /^`([^`]+)`$/)?.output.1 else {
                continue  // the header and its rule
            }
            // A note in parentheses may name other things in backticks (`World/`): not modules.
            var listed = cells.last!
            while let note = listed.firstMatch(of: /\([^()]*\)/) { listed.removeSubrange(note.range) }
            let dependencies = listed.matches(of: /`([^`]+)`/).map { String($0.output.1) }
            rows.append(Row(line: index + 1, module: String(module), dependencies: dependencies))
        }
        return rows
    }

    /// The targets the table must list: libraries and executables in Sources/ (no `path:`
    /// outside it), neither tests nor system libraries.
    static func modules() throws -> [PackageManifest.Target] {
        try PackageManifest(text: PackageFiles.text("Package.swift")).targets.filter { target in
            ["target", "executableTarget"].contains(target.kind)
                && (target.path.map { $0.hasPrefix("Sources/") } ?? true)
        }
    }

    @Test("the manifest and the table are both read")
    func bothAreRead() throws {
        let manifest = try PackageManifest(text: PackageFiles.text("Package.swift"))
        let core = try #require(manifest.targets.first { $0.name == "LiveConnection" })
        #expect(core.dependencies.isEmpty)
        let cli = try #require(manifest.targets.first { $0.name == "LivesimCLI" })
        #expect(
            cli.dependencies.contains("LiveConnectionChecker") && cli.dependencies.count >= 5, "\(cli.dependencies)")
        #expect(manifest.targets.contains { $0.kind == "systemLibrary" && $0.name == "COpenSSL" })
        #expect(manifest.targets.contains { $0.kind == "testTarget" && $0.name == "LiveConnectionTests" })
        #expect(try Self.modules().count >= 10)
        #expect(try Self.rows().count >= 10, "the table under \"\(Self.heading)\" in docs/architecture.md")
    }

    @Test("every module of Package.swift has a row, and every row is a module")
    func sameModules() throws {
        let documented = try Self.rows().map(\.module)
        let declared = try Self.modules().map(\.name)
        let missing = declared.filter { !documented.contains($0) }
        let extra = documented.filter { !declared.contains($0) }
        #expect(missing.isEmpty, "add a row to docs/architecture.md's \"Where things live\" for \(missing)")
        #expect(
            extra.isEmpty,
            "rows for modules Package.swift does not declare (as a library or executable in Sources/): \(extra)")
        let repeated = Dictionary(grouping: documented, by: { $0 }).filter { $1.count > 1 }.keys.sorted()
        #expect(repeated.isEmpty, "modules with two rows: \(repeated)")
    }

    @Test("each row's \"depends on\" is the target's dependency list")
    func sameDependencies() throws {
        let declared = Dictionary(
            try Self.modules().map { ($0.name, $0.dependencies) }, uniquingKeysWith: { a, _ in a })
        for row in try Self.rows() {
            guard let dependencies = declared[row.module] else { continue }  // sameModules names it
            let missing = dependencies.filter { !row.dependencies.contains($0) }
            let extra = row.dependencies.filter { !dependencies.contains($0) }
            #expect(
                missing.isEmpty && extra.isEmpty,
                "\(row): Package.swift has \(dependencies); the row misses \(missing) and adds \(extra)"
            )
        }
    }

    @Test("imports go one way: each row depends only on rows above it")
    func dependenciesComeFirst() throws {
        let rows = try Self.rows()
        let documented = Set(rows.map(\.module))
        var above: Set<String> = []
        for row in rows {
            let below = row.dependencies.filter { documented.contains($0) && !above.contains($0) }
            #expect(below.isEmpty, "\(row) depends on \(below), which the table lists below it (or on itself)")
            above.insert(row.module)
        }
    }
}
