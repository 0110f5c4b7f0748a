import LiveConnection
import LiveConnectionWire

/// A replica of a guide's "production" WebSocket manager with timers, flaws included: the
/// kit's third victim.
///
/// ```swift
/// let kind = TimerManager.kind   // livesim explore --client timers
/// ```
///
/// The design: `connect()` returns early if already connected or connecting, otherwise
/// opens a socket and immediately sets "connected" and resets the attempt counter (the
/// handshake runs in the socket task); a repeating 30 s ping timer is scheduled on every
/// connect and never invalidated; a failed receive and a failed ping both call the same
/// failure handler, which schedules a reconnect after min(2^n, 30) s and gives up after 5
/// attempts; callbacks carry no generation, so a late failure of an old socket (its
/// zombie ping timer) runs the handler against the new one, whose socket reference the
/// next connect overwrites without closing; `disconnect()` cancels the socket, and the
/// cancellation's own receive failure then schedules a reconnect.
///
/// What the wire shows: reconnects after the user disconnected (`wire-quiet-after-stop`);
/// a stale failure doubling the new connection (`wire-one-socket`); the counter reset on
/// the fake "connected" — the delay never grows (`wire-backoff-within-claim`) and the
/// limit of 5 is never reached (`wire-retry-limit-kept`); no dead-peer detection
/// (`wire-dead-peer-given-up`).
actor TimerManager: WireClient {
    let transport: any Transport
    let clock: any Clock<Duration>
    let topics: [String]
    let wire: SubscriptionProtocol
    let jobs = JobQueue()
    var endpoint: Endpoint?
    var socket: PongAwaitingConnection?
    var isConnected = false
    var isConnecting = false
    var attempts = 0

    static let maximumAttempts = 5

    init(context: WireClientContext) {
        transport = context.transport
        clock = context.clock
        topics = context.topics
        wire = context.subscriptionProtocol
    }

    func run() async { await jobs.run() }

    func perform(_ intent: AppIntent) async {
        switch intent {
        case .connect(let endpoint):
            self.endpoint = endpoint
            lastEndpoint = endpoint
            connect()
        case .setForeground(true): connect()
        case .setForeground(false): break
        case .disconnect: await disconnect()
        // The guide's manager has no path monitor.
        case .setPathViable: break
        }
    }

    func isConnected() async -> Bool? { isConnected }

    func connect() {
        guard let endpoint, !isConnected, !isConnecting else { return }
        isConnecting = true
        jobs.add { await self.socketTask(endpoint) }
        // "Opened": the task is resumed, so the guide marks the connection up right away.
        isConnected = true
        isConnecting = false
        attempts = 0
        jobs.add { await self.pingTimer() }
    }

    func disconnect() async {
        endpoint = nil
        isConnected = false
        await socket?.close(code: .normal, reason: "disconnect")  // its receive fails next, and…
    }

    /// Opens the socket, resubscribes, and receives until a failure.
    private func socketTask(_ endpoint: Endpoint) async {
        let connection: PongAwaitingConnection
        do { connection = PongAwaitingConnection(try await transport.connect(to: endpoint)) } catch {
            if !Task.isCancelled { handleFailure() }
            return
        }
        socket = connection  // the previous socket, if any, is simply forgotten
        for topic in topics { try? await connection.send(wire.encode(.subscribe(topic))) }
        while true {
            do {
                guard case .message = try await connection.receive() else { break }
            } catch {
                break
            }
        }
        if !Task.isCancelled { handleFailure() }  // …the same handler as a failed ping
    }

    /// A repeating timer that keeps pinging the socket it first pinged (it is never invalidated).
    private func pingTimer() async {
        var target: PongAwaitingConnection?
        while !Task.isCancelled {
            do { try await clock.sleep(for: .seconds(30)) } catch { return }
            if target == nil { target = socket }
            guard let connection = target else { continue }
            do { try await connection.ping() } catch {
                if Task.isCancelled { return }
                handleFailure()  // no generation: runs against whatever connection is current
            }
        }
    }

    private func handleFailure() {
        isConnected = false
        guard attempts < Self.maximumAttempts else { return }  // gives up
        attempts += 1
        let delay = Duration.seconds(min(1 << attempts, 30))
        jobs.add {
            do { try await self.clock.sleep(for: delay) } catch { return }
            await self.reconnect()
        }
    }

    private func reconnect() {
        if endpoint == nil, let last = lastEndpoint { endpoint = last }
        connect()
    }

    /// The guide keeps the URL it was first given; reconnecting after a disconnect uses it.
    private var lastEndpoint: Endpoint?

    static let kind = ClientKind(
        name: "timers",
        summary: "a guide's production manager: 'connected' at once, min(2^n, 30) s, gives up after 5, no generations",
        claims: WireClaims(
            backoff: ClaimedBackoff(.exponential(base: .seconds(2), cap: .seconds(30))),
            deadPeerBound: .seconds(40), retryLimit: maximumAttempts)
    ) { TimerManager(context: $0) }
}
