import Foundation
import LiveConnection
import LiveConnectionSimulator
import TestScheduling
import Testing

/// The trace commands of the built `livesim`, run as a user runs them: output and exit status.
@Suite("livesim trace commands", .waitsOnPeers, .timeLimit(.minutes(5)))
struct LivesimTraceCommandTests {
    /// A manager trace written by hand: connect, then a reset at 3 s.
    static func sample() -> Trace {
        let scenario = Scenario(
            seed: 42, configuration: ConnectionConfiguration(), strategy: .fifo, duration: .seconds(60),
            schedule: [
                ScheduledAction(at: .zero, .connect(endpoint: 0)), ScheduledAction(at: .seconds(3), .resetConnection),
            ], managerSeed: 7)
        return Trace(scenario: scenario, generator: .handWritten)
    }

    /// The 1-based number of the first line of `text` that is `line`, for messages that name it.
    static func number(of line: String, in text: String) throws -> Int {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        return try #require(lines.firstIndex { $0 == line }, "no line '\(line)' in\n\(text)") + 1
    }

    /// Writes `text` to a fresh temporary file and returns its path.
    static func file(_ text: String, named name: String) throws -> String {
        try ScratchDirectory.file(text, named: name).path
    }

    @Test("diff prints the first differing line and exits 1; identical traces exit 0")
    func diff() throws {
        var other = Self.sample()
        other.scenario.schedule[1].action = .freeze
        let text = Self.sample().encode()
        let line = try Self.number(of: "3000ms reset", in: text)
        let a = try Self.file(text, named: "a.trace")
        let b = try Self.file(other.encode(), named: "b.trace")
        let different = try LivesimProcess.run(["diff", a, b])
        #expect(different.status == 1)
        #expect(
            different.standardOutput.contains("traces diverge at line \(line) (schedule, virtual time 3000ms):"),
            "\(different.standardOutput)")
        #expect(different.standardOutput.contains("  - \(line)  3000ms reset\n  + \(line)  3000ms freeze\n"))
        let same = try LivesimProcess.run(["diff", a, a])
        #expect(same.status == 0 && same.standardOutput.hasPrefix("identical"))
    }

    @Test(
        "a malformed trace is one line on standard error, path:line: reason, and exit 1")
    func malformed() throws {
        let good = try Self.file(Self.sample().encode(), named: "good.trace")
        let text = Self.sample().encode().replacingOccurrences(of: "3000ms reset", with: "3000ms rest")
        let line = try Self.number(of: "3000ms rest", in: text)
        let bad = try Self.file(text, named: "bad.trace")
        let result = try LivesimProcess.run(["diff", good, bad])
        #expect(result.status == 1)
        #expect(
            result.standardError.hasPrefix("livesim diff: \(bad):\(line): unknown action 'rest'"),
            "\(result.standardError)")
        #expect(result.standardError.split(separator: "\n").count == 1)
        #expect(result.standardOutput.isEmpty)
    }

    @Test("a missing file or a missing argument is an error, not a crash")
    func badArguments() throws {
        let missing = try LivesimProcess.run(["diff", "/nonexistent/a.trace", "/nonexistent/b.trace"])
        #expect(missing.status == 1 && missing.standardError.contains("/nonexistent/a.trace: no such file"))
        let usage = try LivesimProcess.run(["diff", "only-one.trace"])
        #expect(usage.status == 64 && usage.standardError.contains("usage: livesim diff"))
    }
}
