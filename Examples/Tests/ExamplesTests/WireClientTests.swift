// guide.md §10, compiled: a reconnecting client of your own, judged from the wire in a
// Swift Testing test, its broken rules shrunk to small traces that replay through
// LIVESIM_TRACE. The snippets of §10 are excerpts of this file (`.ci/doc-snippets`).
import LiveConnection
import LiveConnectionSimulator
import LiveConnectionTesting
import LiveConnectionWire
import Testing

/// A client as a first attempt might write it: connect on start, resubscribe, and after
/// any ending wait one fixed second and dial again. No backoff growth, no jitter, no
/// heartbeat, and it ignores disconnect.
actor NaiveClient: WireClient {
    let transport: any Transport
    let clock: any Clock<Duration>
    let topics: [String]
    let wire: SubscriptionProtocol
    let intents: AsyncStream<AppIntent>
    let intent: AsyncStream<AppIntent>.Continuation
    var open = false

    init(context: WireClientContext) {
        transport = context.transport
        clock = context.clock
        topics = context.topics
        wire = context.subscriptionProtocol
        (intents, intent) = AsyncStream.makeStream(of: AppIntent.self)
    }

    /// Its lifetime: waits for the first start, then connects for ever.
    func run() async {
        var endpoint: Endpoint?
        for await case .start(let first) in intents {
            endpoint = first
            break
        }
        guard let endpoint else { return }
        while !Task.isCancelled {
            if let connection = try? await transport.connect(to: endpoint) {
                for topic in topics { try? await connection.send(wire.encode(.subscribe(topic))) }
                open = true
                while case .message? = try? await connection.receive() {}
                open = false
                await connection.close(code: .normal, reason: "done")
            }
            do { try await clock.sleep(for: .seconds(1)) } catch { return }
        }
    }

    func perform(_ intent: AppIntent) async { self.intent.yield(intent) }

    func isConnected() async -> Bool? { open }
}

@Suite("guide §10: your own client, judged from the wire")
struct WireClientTests {
    /// What the client promises: a retry after one second, a silent peer given up within a minute.
    static let naive = ClientKind(
        name: "naive", summary: "one second between attempts, no heartbeat",
        claims: WireClaims(
            backoff: ClaimedBackoff(name: "a fixed second", maximum: .seconds(1)) { _, _ in .constant(.seconds(1)) },
            deadPeerBound: .seconds(60))
    ) { NaiveClient(context: $0) }

    @Test("the naive client breaks wire rules; each is reported once, shrunk, with a replay line")
    func naiveClientIsJudged() {
        // Known issues: the flaws are the point of this example (a real suite lets them fail).
        withKnownIssue {
            let judgement = try judgeOnTheWire(Self.naive, seeds: 0..<4, duration: .seconds(600))
            #expect(!judgement.passed)
            for trace in judgement.traces {
                #expect(trace.scenario.schedule.count <= 10)
                #expect(trace.claims?.contains("backoff=\"a fixed second\"") == true)
            }
        }
    }
}
