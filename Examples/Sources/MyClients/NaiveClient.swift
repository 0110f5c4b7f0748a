// guide.md §10, compiled: a reconnecting client of your own, in a library of your package,
// so your tests (Tests/ExamplesTests/WireClientTests.swift) and your own livesim
// (Sources/MyLivesim) use the same client with the same claims. The client snippets of §10
// are excerpts of this file (`.ci/doc-snippets`).
import LiveConnection
import LiveConnectionWire

/// A client as a first attempt might write it: connect on start, resubscribe, and after
/// any ending wait one fixed second and dial again. No backoff growth, no jitter, no
/// heartbeat, and it ignores disconnect.
public actor NaiveClient: WireClient {
    let transport: any Transport
    let clock: any Clock<Duration>
    let topics: [String]
    let wire: SubscriptionProtocol
    let intents: AsyncStream<AppIntent>
    let intent: AsyncStream<AppIntent>.Continuation
    var open = false

    public init(context: WireClientContext) {
        transport = context.transport
        clock = context.clock
        topics = context.topics
        wire = context.subscriptionProtocol
        (intents, intent) = AsyncStream.makeStream(of: AppIntent.self)
    }

    /// Its lifetime: waits for the first start, then connects for ever.
    public func run() async {
        var endpoint: Endpoint?
        for await case .connect(let first) in intents {
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

    public func perform(_ intent: AppIntent) async { self.intent.yield(intent) }

    public func isConnected() async -> Bool? { open }

    /// The client named, with what it promises: a retry after one second, a silent peer
    /// given up within a minute.
    public static let kind = ClientKind(
        name: "naive", summary: "one second between attempts, no heartbeat",
        claims: WireClaims(
            backoff: ClaimedBackoff(name: "a fixed second", maximum: .seconds(1)) { _, _ in .constant(.seconds(1)) },
            deadPeerBound: .seconds(60))
    ) { NaiveClient(context: $0) }
}
