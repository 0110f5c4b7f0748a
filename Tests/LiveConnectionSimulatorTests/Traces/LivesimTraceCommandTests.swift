import Foundation
import LiveConnection
import LiveConnectionSimulator
import TestScheduling
import Testing

/// The trace commands of the built `livesim`, run as a user runs them: output and exit status.
@Suite("livesim trace commands", .waitsOnPeers, .timeLimit(.minutes(5)))
struct LivesimTraceCommandTests {
    /// `livesim` next to the test bundle (both are products of the same build).
    static let executable: URL? = {
        let sibling = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("livesim")
        return FileManager.default.isExecutableFile(atPath: sibling.path) ? sibling : nil
    }()

    /// The CLI tests need the binary: a missing one is a failure that says what to do,
    /// never a silent skip that would let a broken command pass.
    struct NotBuilt: Error, CustomStringConvertible {
        var description: String {
            "livesim is not built next to the test bundle (\(CommandLine.arguments[0])): run `swift build` first"
        }
    }

    struct Output {
        var status: Int32
        var standardOutput: String
        var standardError: String
    }

    static func livesim(_ arguments: [String]) throws -> Output {
        let process = Process()
        guard let executable = Self.executable else { throw NotBuilt() }
        process.executableURL = executable
        process.arguments = arguments
        let run = try process.runCapturing(within: .seconds(120))
        return Output(
            status: run.exit.status, standardOutput: String(decoding: run.standardOutput, as: UTF8.self),
            standardError: String(decoding: run.standardError, as: UTF8.self))
    }

    /// Writes `text` to a fresh temporary file and returns its path.
    static func file(_ text: String, named name: String) throws -> String {
        try ScratchDirectory.file(text, named: name).path
    }

    @Test("diff prints the first differing line and exits 1; identical traces exit 0")
    func diff() throws {
        var other = TraceRoundTripTests.sample()
        other.scenario.schedule[3].action = .freeze
        let a = try Self.file(TraceRoundTripTests.sample().encode(), named: "a.trace")
        let b = try Self.file(other.encode(), named: "b.trace")
        let different = try Self.livesim(["diff", a, b])
        #expect(different.status == 1)
        #expect(different.standardOutput.contains("traces diverge at line 24 (schedule, virtual time 3000ms):"))
        #expect(different.standardOutput.contains("  - 24  3000ms reset\n  + 24  3000ms freeze\n"))
        let same = try Self.livesim(["diff", a, a])
        #expect(same.status == 0 && same.standardOutput.hasPrefix("identical"))
    }

    @Test(
        "a malformed trace is one line on standard error, path:line: reason, and exit 1")
    func malformed() throws {
        let good = try Self.file(TraceRoundTripTests.sample().encode(), named: "good.trace")
        let text = TraceRoundTripTests.sample().encode().replacingOccurrences(of: "3000ms reset", with: "3000ms rest")
        let bad = try Self.file(text, named: "bad.trace")
        let result = try Self.livesim(["diff", good, bad])
        #expect(result.status == 1)
        #expect(
            result.standardError.hasPrefix("livesim diff: \(bad):24: unknown action 'rest'"), "\(result.standardError)")
        #expect(result.standardError.split(separator: "\n").count == 1)
        #expect(result.standardOutput.isEmpty)
    }

    @Test("a missing file or a missing argument is an error, not a crash")
    func badArguments() throws {
        let missing = try Self.livesim(["diff", "/nonexistent/a.trace", "/nonexistent/b.trace"])
        #expect(missing.status == 1 && missing.standardError.contains("/nonexistent/a.trace: no such file"))
        let usage = try Self.livesim(["diff", "only-one.trace"])
        #expect(usage.status == 64 && usage.standardError.contains("usage: livesim diff"))
    }
}
