import LiveConnection
import LiveConnectionChecker
import LiveConnectionSimulator
import TestScheduling
import Testing

@Suite("Interleaving exploration of the connection manager", .computeBound)
struct ManagerInterleavingTests {
    @Test(
        "every interleaving within one preemption resubscribes (and resumes) on both connections before the second open"
    )
    func reconnectResubscribesInEveryInterleaving() {
        // About 65 choice points a run: one preemption is exhaustive in a few hundred
        // interleavings; two would be tens of thousands (run them with a bigger budget).
        let scenario = ReconnectScenario()
        let report = InterleavingExplorer.explore(preemptionBound: 1, maxInterleavings: 5_000) {
            scenario.passes(under: $0)
        }
        #expect(report.passed, "\(report)")
        #expect(report.interleavings > 1, "\(report)")
        #expect(report.deepest > 0)
        #expect(report.exhaustive, "\(report)")
    }

    @Test("a broken manager fails, and the failing interleaving replays to the same failure")
    func brokenManagerFails() throws {
        let scenario = ReconnectScenario(variant: try #require(.named("skips-resubscribe")))
        let report = InterleavingExplorer.explore(preemptionBound: 1, maxInterleavings: 5_000) {
            scenario.passes(under: $0)
        }
        let failing = try #require(report.failing, "\(report)")
        #expect(!scenario.passes(under: ScriptedScheduling(prefix: failing)))
        // Subscribe frames are only ever sent when a connection opens, and the variant drops them.
        let frames = try #require(scenario.run(under: ScriptedScheduling(prefix: failing)))
        #expect(frames.count == 2 && frames[1].allSatisfy { !$0.contains("\"subscribe\"") })
    }

    @Test("PCT over many seeds passes the shipped manager and catches the broken one")
    func pct() throws {
        let shipped = ReconnectScenario()
        let report = InterleavingExplorer.pct(seeds: 0..<50, depth: 3) { shipped.passes(under: $0) }
        #expect(report.passed, "\(report)")
        let broken = ReconnectScenario(variant: try #require(.named("forgets-resume")))
        #expect(!InterleavingExplorer.pct(seeds: 0..<50, depth: 3) { broken.passes(under: $0) }.passed)
    }
}
