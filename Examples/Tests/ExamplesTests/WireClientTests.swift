// guide.md §10, compiled: a reconnecting client of your own (Sources/MyClients), judged
// from the wire in a Swift Testing test, its broken rules shrunk to small traces that replay
// through LIVESIM_TRACE. The test snippet of §10 is an excerpt of this file (`.ci/doc-snippets`).
import LiveConnectionSimulator
import LiveConnectionTesting
import LiveConnectionWire
import MyClients
import Testing

@Suite("guide §10: your own client, judged from the wire")
struct WireClientTests {
    @Test("the naive client breaks wire rules; each is reported once, shrunk, with a replay line")
    func naiveClientIsJudged() {
        // Known issues: the flaws are the point of this example (a real suite lets them fail).
        withKnownIssue {
            let judgement = try judgeOnTheWire(NaiveClient.kind, seeds: 0..<4, duration: .seconds(600))
            #expect(!judgement.passed)
            for trace in judgement.traces {
                #expect(trace.scenario.schedule.count <= 10)
                #expect(trace.claims?.contains("backoff=\"a fixed second\"") == true)
            }
        }
    }
}
