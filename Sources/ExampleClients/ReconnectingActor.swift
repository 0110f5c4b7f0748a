import LiveConnection
import LiveConnectionWire

/// A replica of a skill file's reconnecting actor, flaws included: the kit's second victim.
///
/// ```swift
/// let kind = ReconnectingActor.kind   // livesim explore --client actor
/// ```
///
/// The design: an inner connection reports "connected" as soon as its socket task is
/// running — before the WebSocket handshake (in the replica: once the transport got past
/// TCP, so a handshake the server rejects still counts, a refused TCP connection does
/// not); the outer loop resets its attempt counter on that event, retries after
/// base·2^(n−1) capped at 60 s plus a random 0–25 % on top, and gives up after 10
/// attempts; pings every 30 s only log their failures. It resubscribes on every socket.
///
/// What the wire shows: against a server that rejects handshakes the delay never grows
/// (`wire-backoff-within-claim`: the fake "connected" reset it); a herd's retries bunch in
/// the top fifth of the window — not the full jitter the design might be mistaken for
/// (`wire-herd-spread`); after 10 refused attempts it stops for good and never comes back
/// (`wire-reconnects`); a silent peer is never given up (`wire-dead-peer-given-up`); and its
/// probe says connected before any handshake (`wire-open-after-handshake`).
actor ReconnectingActor: WireClient {
    /// What the inner connection tells the outer loop.
    enum ConnectionEvent {
        case connected
        case message
        case disconnected
    }

    let transport: any Transport
    let clock: any Clock<Duration>
    let topics: [String]
    let wire: SubscriptionProtocol
    let jobs = JobQueue()
    var random: Xoshiro256StarStar
    var connected = false
    var running = false
    var stopped = false
    var current: (any TransportConnection)?

    static let base = Duration.seconds(1)
    static let cap = Duration.seconds(60)
    static let maximumAttempts = 10

    init(context: WireClientContext) {
        transport = context.transport
        clock = context.clock
        topics = context.topics
        wire = context.subscriptionProtocol
        random = context.makeRandom()
    }

    func run() async { await jobs.run() }

    func perform(_ intent: AppIntent) async {
        switch intent {
        case .connect(let endpoint):
            stopped = false
            guard !running else { return }
            running = true
            jobs.add { await self.outerLoop(endpoint) }
        // The skill file's actor has no path monitor.
        case .setForeground, .setPathViable: break
        case .disconnect:
            stopped = true
            await current?.close(code: .normal, reason: "disconnect")
        }
    }

    func isConnected() async -> Bool? { connected }

    /// The outer loop: connect, consume, back off; give up after 10 attempts.
    private func outerLoop(_ endpoint: Endpoint) async {
        defer { running = false }
        var attempts = 0
        while !Task.isCancelled && !stopped {
            for event in await connectAndConsume(endpoint) where event == .connected {
                attempts = 0  // the fake "connected" resets the counter
            }
            guard !Task.isCancelled, !stopped else { return }
            attempts += 1
            if attempts >= Self.maximumAttempts { return }  // gives up for good
            var ceiling = Self.base
            for _ in 1..<attempts where ceiling < Self.cap { ceiling = ceiling * 2 }
            ceiling = min(ceiling, Self.cap)
            let delay = ceiling + random.duration(upTo: ceiling / 4)
            do { try await clock.sleep(for: delay) } catch { return }
        }
    }

    /// The inner connection: reports connected when the socket task runs, then what happens.
    private func connectAndConsume(_ endpoint: Endpoint) async -> [ConnectionEvent] {
        connected = true  // the socket task started: "connected", before any handshake
        defer { connected = false }
        let connection: PongAwaitingConnection
        do {
            connection = PongAwaitingConnection(try await transport.connect(to: endpoint))
        } catch {
            // TCP was up when the handshake itself failed: the task had run, "connected" was sent.
            if case .handshakeRejected = error { return [.connected, .disconnected] }
            return [.disconnected]
        }
        current = connection
        defer { current = nil }
        for topic in topics { try? await connection.send(wire.encode(.subscribe(topic))) }
        var events: [ConnectionEvent] = [.connected]
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                while !Task.isCancelled {
                    do { try await self.clock.sleep(for: .seconds(30)) } catch { return }
                    do { try await connection.ping() } catch { /* logged, nothing else */  }
                }
            }
            while case .message? = try? await connection.receive() { events.append(.message) }
            group.cancelAll()
        }
        await connection.close(code: .normal, reason: "done")
        return events + [.disconnected]
    }

    static let kind = ClientKind(
        name: "actor",
        summary: "a skill file's reconnecting actor: 'connected' before the handshake, 2^n + 0–25 %, gives up after 10",
        claims: WireClaims(
            backoff: ClaimedBackoff(name: "base·2^(n−1) capped at 60 s, plus 0–25 %", maximum: cap + cap / 4) { n, _ in
                var ceiling = base
                for _ in 1..<max(1, n) where ceiling < cap { ceiling = ceiling * 2 }
                ceiling = min(ceiling, cap)
                return .uniform(ceiling...(ceiling + ceiling / 4))
            },
            deadPeerBound: .seconds(40), retryLimit: maximumAttempts)
    ) { ReconnectingActor(context: $0) }
}
