import LiveConnection
import LiveConnectionWire

/// A user's own client, compiled only into this test target, as a user's client is compiled
/// only into the user's package: livesim itself has never heard of it. It connects once on
/// start, subscribes, reads until the connection ends, and never dials again, so the wire
/// judge catches it on the first seed whose server drops it.
actor OneShotClient: WireClient {
    let transport: any Transport
    let topics: [String]
    let wire: SubscriptionProtocol
    let intents: AsyncStream<AppIntent>
    let intent: AsyncStream<AppIntent>.Continuation
    var open = false

    init(context: WireClientContext) {
        transport = context.transport
        topics = context.topics
        wire = context.subscriptionProtocol
        (intents, intent) = AsyncStream.makeStream(of: AppIntent.self)
    }

    /// Waits for the first start, then holds one connection for as long as it lasts.
    func run() async {
        var endpoint: Endpoint?
        for await case .connect(let first) in intents {
            endpoint = first
            break
        }
        guard let endpoint, let connection = try? await transport.connect(to: endpoint) else { return }
        for topic in topics { try? await connection.send(wire.encode(.subscribe(topic))) }
        open = true
        while case .message? = try? await connection.receive() {}
        open = false
        await connection.close(code: .normal, reason: "done")
    }

    func perform(_ intent: AppIntent) async { self.intent.yield(intent) }

    func isConnected() async -> Bool? { open }

    /// Claims no built-in client makes (a retry after 2 s, a silent peer given up within 45 s),
    /// so a trace header that shows them can only have come from this kind.
    static let kind = ClientKind(
        name: "one-shot", summary: "a test's own client: one connection, never another",
        claims: WireClaims(
            backoff: ClaimedBackoff(name: "two seconds", maximum: .seconds(2)) { _, _ in .constant(.seconds(2)) },
            deadPeerBound: .seconds(45))
    ) { OneShotClient(context: $0) }
}
