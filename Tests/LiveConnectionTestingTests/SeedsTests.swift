import Foundation
import LiveConnection
import LiveConnectionSimulator
import LiveConnectionTesting
import Testing

@Suite("Seeds")
struct SeedsTests {
    @Test("LIVESIM_SEED pins one seed", arguments: [("37", 37 as UInt64), (" 0 ", 0), ("18446744073709551615", .max)])
    func pinned(text: String, seed: UInt64) throws {
        #expect(try Seeds.pinned(in: ["LIVESIM_SEED": text]) == seed)
    }

    @Test("without LIVESIM_SEED nothing is pinned")
    func unset() throws {
        #expect(try Seeds.pinned(in: ["PATH": "/usr/bin"]) == nil)
    }

    @Test(
        "a LIVESIM_SEED that is not a seed is an error, not the whole range",
        arguments: ["", "-1", "0x10", "12a", "18446744073709551616", "1 2"])
    func malformed(text: String) {
        #expect(throws: SeedsError.malformedEnvironment(text)) { try Seeds.pinned(in: ["LIVESIM_SEED": text]) }
    }

    @Test(
        "the range is every seed in it when nothing is pinned",
        .enabled(if: ProcessInfo.processInfo.environment["LIVESIM_SEED"] == nil))
    func range() throws {
        #expect(try Seeds.range(5..<9) == [5, 6, 7, 8])
        #expect(try Seeds.list([3, 1]) == [3, 1])
    }

    @Test("the replay command names the seed and the test without its parameters")
    func replayCommand() throws {
        #expect(
            ReplayCommand(seed: 37, testName: "ChatTests/showsEveryMessage").description
                == "LIVESIM_SEED=37 swift test --filter 'ChatTests/showsEveryMessage'")
        let current = try #require(Test.current)
        #expect(
            ReplayCommand(seed: 1, test: current).description
                == "LIVESIM_SEED=1 swift test --filter 'SeedsTests/replayCommand'")
    }
}

@Suite("LIVESIM_TRACE")
struct PinnedTraceTests {
    static func file(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "livesim-pinned-\(ProcessInfo.processInfo.processIdentifier)-\(UInt64.random(in: 0...UInt64.max)).trace"
        ).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// A trace of seed 12 with one action, as a test (`test`) or the manager (nil) wrote it.
    static func trace(test: String?, kept: [Int]? = nil) -> String {
        let scenario = Scenario(
            seed: 12, configuration: ConnectionConfiguration(), strategy: .fifo, duration: .seconds(1),
            schedule: [ScheduledAction(at: .zero, .connect(endpoint: 0))], managerSeed: 12)
        return Trace(scenario: scenario, generator: .handWritten, test: test, keptPerforms: kept).encode()
    }

    @Test("without LIVESIM_TRACE nothing is pinned")
    func unset() throws {
        #expect(try PinnedTrace.pinned(in: [:]).map(\.path) == nil)
    }

    @Test("a test's trace is pinned: its seed, its strategy, the perform calls it kept")
    func testTrace() throws {
        let path = try Self.file(Self.trace(test: "Suite/test", kept: [0, 4]))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let pinned = try #require(try PinnedTrace.pinned(in: ["LIVESIM_TRACE": path]))
        #expect(pinned.trace.test == "Suite/test")
        #expect(pinned.trace.keptPerforms == [0, 4])
        #expect(pinned.trace.scenario.seed == 12)
    }

    @Test("a trace no test produced is refused, naming the command that replays it")
    func notATestTrace() throws {
        let path = try Self.file(Self.trace(test: nil))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: SeedsError.notATestTrace(path)) { try PinnedTrace.pinned(in: ["LIVESIM_TRACE": path]) }
        #expect(SeedsError.notATestTrace(path).description.contains("livesim replay \(path)"))
    }

    @Test("a missing or malformed file is an error, not every seed")
    func unreadable() throws {
        #expect(throws: SeedsError.self) { try PinnedTrace.pinned(in: ["LIVESIM_TRACE": "/nonexistent/x.trace"]) }
        let path = try Self.file("not a trace\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: SeedsError.self) { try PinnedTrace.pinned(in: ["LIVESIM_TRACE": path]) }
    }
}
