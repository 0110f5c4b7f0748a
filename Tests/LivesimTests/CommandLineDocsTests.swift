import Foundation
import PackageFiles
import Testing

@testable import LivesimCLI

/// docs/cli.md is the command line's reference: it must name every command, every option
/// each command documents in its help, and every exit status it can return.
@Suite("livesim docs/cli.md")
struct CommandLineDocsTests {
    static let page: String? = try? PackageFiles.text("docs/cli.md")

    /// The part of the page about one command: from its heading to the next.
    static func section(of name: String) -> String? {
        guard let page, let start = page.range(of: "### `livesim \(name)`") else { return nil }
        let rest = page[start.upperBound...]
        return String(rest[..<(rest.range(of: "\n### ")?.lowerBound ?? rest.endIndex)])
    }

    @Test(
        "every command has a section naming each of its options and exit statuses",
        arguments: Livesim.commands.map(\.name))
    func everyOption(name: String) throws {
        let command = Livesim.commands.first { $0.name == name }!
        let section = try #require(Self.section(of: name), "docs/cli.md has no section for livesim \(name)")
        for option in HostileArgumentTests.options(of: command) {
            #expect(section.contains("`\(option)"), "docs/cli.md: livesim \(name) does not document \(option)")
        }
        for status in command.documentedStatuses where status != 64 {
            #expect(section.contains("\(status) "), "docs/cli.md: livesim \(name) does not document exit \(status)")
        }
    }
}
