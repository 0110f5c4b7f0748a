import Foundation
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
