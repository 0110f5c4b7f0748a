import LiveConnection
import LiveConnectionWire

/// A replica of a book chapter's notifications socket, flaws included: the kit's first victim.
///
/// ```swift
/// let kind = NotificationsSocket.kind   // livesim explore --client notifications
/// ```
///
/// The design: `connect` sends a bearer token header and starts a ping every 30 s whose
/// failure is ignored (no pong deadline); a view model loops connect → consume events
/// until the stream ends → sleep → retry, with delays 1, 2, 4 … 30 s and no jitter, reset
/// only when a message arrives; the screen calls `start()` both when it appears and when
/// the app becomes active, and `start()` does not cancel a loop already running; the
/// subscription is sent once, on the first connection (no resubscribe, no resume).
///
/// What the wire shows: two live sockets after appear + activate (`wire-one-socket`); a
/// silent peer never given up (`wire-dead-peer-given-up`); a herd retrying in lockstep
/// (`wire-herd-spread`); a second socket that never subscribes, so broadcasts are lost
/// across a drop (`wire-resubscribed-before-open`).
actor NotificationsSocket: WireClient {
    let transport: any Transport
    let clock: any Clock<Duration>
    let topics: [String]
    let wire: SubscriptionProtocol
    let jobs = JobQueue()
    /// Bumped by `stop()`: a loop of an older epoch ends when it next looks.
    var epoch = 0
    var subscribedOnce = false
    var connections: [Int: any TransportConnection] = [:]
    var nextConnection = 0

    init(context: WireClientContext) {
        transport = context.transport
        clock = context.clock
        topics = context.topics
        wire = context.subscriptionProtocol
    }

    func run() async { await jobs.run() }

    func perform(_ intent: AppIntent) async {
        switch intent {
        case .connect(let endpoint): start(endpoint)
        // The screen calls start() when the app becomes active, too (with the endpoint it knows).
        case .setForeground(true): if let endpoint = lastEndpoint { start(endpoint) }
        case .setForeground(false): break
        case .disconnect: await stop()
        // The chapter's socket has no path monitor.
        case .setPathViable: break
        }
    }

    /// No "connected" state is exposed: no probe.
    func isConnected() async -> Bool? { nil }

    var lastEndpoint: Endpoint?

    /// Starts a connect-consume-retry loop. A loop already running is not cancelled.
    func start(_ endpoint: Endpoint) {
        lastEndpoint = endpoint
        let mine = epoch
        jobs.add { await self.loop(endpoint, epoch: mine) }
    }

    func stop() async {
        epoch += 1
        lastEndpoint = nil
        for key in connections.keys.sorted() { await connections[key]?.close(code: .normal, reason: "stop") }
        connections = [:]
    }

    private func loop(_ endpoint: Endpoint, epoch mine: Int) async {
        var delay = Duration.seconds(1)
        while !Task.isCancelled && epoch == mine {
            var request = endpoint
            request.headers.append(Endpoint.Header("Authorization", "Bearer notifications-token"))
            if let connection = (try? await transport.connect(to: request)).map(PongAwaitingConnection.init) {
                nextConnection += 1
                let key = nextConnection
                connections[key] = connection
                if !subscribedOnce {
                    subscribedOnce = true
                    for topic in topics { try? await connection.send(wire.encode(.subscribe(topic))) }
                }
                if await consume(connection) { delay = .seconds(1) }
                connections[key] = nil
                await connection.close(code: .normal, reason: "stream ended")
            }
            guard !Task.isCancelled, epoch == mine else { return }
            do { try await clock.sleep(for: delay) } catch { return }
            delay = min(delay * 2, .seconds(30))
        }
    }

    /// Reads events until the stream ends, pinging every 30 s meanwhile (failures ignored).
    /// Returns whether a message arrived (the only thing that resets the backoff).
    private func consume(_ connection: PongAwaitingConnection) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                while !Task.isCancelled {
                    do { try await self.clock.sleep(for: .seconds(30)) } catch { return false }
                    try? await connection.ping()  // no deadline: a silent peer parks this forever
                }
                return false
            }
            group.addTask {
                var received = false
                while true {
                    guard case .message? = try? await connection.receive() else { return received }
                    received = true
                }
            }
            let received = await group.next() ?? false
            group.cancelAll()
            return received
        }
    }

    static let kind = ClientKind(
        name: "notifications",
        summary:
            "a book's notifications socket: start() on appear and on activate, 1–30 s without jitter, no resubscribe",
        claims: WireClaims(
            backoff: ClaimedBackoff(.exponential(base: .seconds(1), cap: .seconds(30))),
            // Pings every 30 s; a user would give a silent peer at most another 10 s.
            deadPeerBound: .seconds(40))
    ) { NotificationsSocket(context: $0) }
}
