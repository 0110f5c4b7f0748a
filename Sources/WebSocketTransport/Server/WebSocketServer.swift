public import LiveConnection

public import typealias LiveConnection.Mutex

/// The server side of RFC 6455 on the package's own sockets, reactor and OpenSSL code:
/// many connections, each a child task, every wait parked in the one `IOReactor`.
///
/// ```swift
/// let server = try WebSocketServer(configuration: .init(port: 0), handler: EchoHandler())
/// print(server.port)                  // the port the system chose
/// try await withThrowingTaskGroup(of: Void.self) { group in
///     group.addTask { await server.run() }
///     …                               // talk to ws://127.0.0.1:\(server.port)/
///     group.cancelAll()               // run() returns once every connection has ended
/// }
/// ```
///
/// It binds in `init`, so a port in use is an error there and the port is known before
/// anything runs. `run()` serves until its task is cancelled. Hostile clients are bounded:
/// a handshake must arrive within ``Configuration/handshakeTimeout`` (slow loris), a
/// message over ``Configuration/maxMessageSize`` (inflated, with compression: bombs too)
/// fails its connection with 1009, a client that stops reading is reset once
/// ``Configuration/maxQueuedBytes`` pile up (pongs included), the server as a whole holds at
/// most about ``Configuration/maxBufferedBytes`` for its clients (the largest holders are
/// dropped past it), and beyond ``Configuration/maxConnections`` new clients get a 503. ``Configuration/compression`` grants permessage-deflate.
///
/// The fault controls (`freeze()`, `refuseConnections(_:)`, `hangHandshakes(_:)`, …, with
/// `import LiveTestServer`) make it a test server: the same faults the simulated network
/// injects, on real sockets.
public final class WebSocketServer: Sendable {
    public struct Configuration: Sendable {
        /// An IPv4 or IPv6 literal (or `localhost`). Loopback by default.
        public var host: String
        /// 0 lets the system choose; read the result from ``WebSocketServer/port``.
        public var port: UInt16
        /// Serve wss:// with this identity; nil serves ws://.
        public var tls: TLSServerContext?
        /// The largest message accepted from a client; bigger fails the connection with 1009.
        public var maxMessageSize: Int
        /// From TCP accept to a complete request head (and the TLS handshake before it).
        public var handshakeTimeout: Duration
        /// How long a close handshake may take before the socket is dropped anyway.
        public var closeTimeout: Duration
        /// Connections (handshaking or open) served at once; more are answered 503.
        public var maxConnections: Int
        /// When the server is full, a new connection takes the place of the oldest one that has
        /// not yet sent a complete request head (reset, counted in
        /// ``ServerStatistics/evictedIdle``) instead of being answered 503, so idle sockets
        /// cannot lock out a control endpoint. Off by default: a WebSocket client still handshaking
        /// is not dropped for a newcomer.
        public var evictsIdleHandshakes: Bool
        /// Bytes queued for one client (data, pongs and close) before it is reset as not reading.
        public var maxQueuedBytes: Int
        /// Bytes the server holds for all its clients together: queued outgoing payloads and
        /// incoming frames and messages not yet complete. Past it, the connections holding the
        /// most are dropped (``ServerStatistics/budgetDrops``) until it is back under; under it,
        /// nobody is touched. 256 MiB by default.
        public var maxBufferedBytes: Int
        /// permessage-deflate to grant a client that offers it, with the server's own terms;
        /// nil (the default) declines every offer. ``maxMessageSize`` then limits the inflated
        /// message.
        public var compression: PerMessageDeflate?

        public init(
            host: String = "127.0.0.1", port: UInt16 = 0, tls: TLSServerContext? = nil, maxMessageSize: Int = 1 << 20,
            handshakeTimeout: Duration = .seconds(10), closeTimeout: Duration = .seconds(2),
            maxConnections: Int = 1024, maxQueuedBytes: Int = 16 << 20, compression: PerMessageDeflate? = nil,
            evictsIdleHandshakes: Bool = false,
            maxBufferedBytes: Int = 256 << 20
        ) {
            precondition(
                maxMessageSize >= 0 && maxConnections > 0 && maxQueuedBytes > 0 && maxBufferedBytes > 0,
                "server limits must be positive")
            self.host = host
            self.port = port
            self.tls = tls
            self.maxMessageSize = maxMessageSize
            self.handshakeTimeout = handshakeTimeout
            self.closeTimeout = closeTimeout
            self.maxConnections = maxConnections
            self.maxQueuedBytes = maxQueuedBytes
            self.compression = compression
            self.evictsIdleHandshakes = evictsIdleHandshakes
            self.maxBufferedBytes = maxBufferedBytes
        }
    }

    struct State {
        var connections: [ServerConnection] = []
        var nextID: UInt64 = 0
        /// Set by ``failHandshakes(status:)``: every handshake is answered with it.
        var handshakeStatus: Int?
        var latency: Duration = .zero
        /// Set by the idle-timeout fault (LiveTestServer's `setIdleTimeout(_:)`): a connection with no frame either way for this long goes silent.
        var idleTimeout: Duration?
        var acceptThenClose: ClosePayload?
        var statistics = ServerStatistics()
    }

    public let configuration: Configuration
    /// The port the server listens on.
    public var port: UInt16 { listening.port }
    let handler: any WebSocketServerHandler
    /// Hears every wire event and fault (a wire history's recorder); nil: nobody listens.
    let observer: (any ServerWireObserver)?
    let state: Mutex<State>
    /// What every connection holds, against ``Configuration/maxBufferedBytes``.
    let budget: BufferBudget
    /// Shut while frozen: no reads, no writes, no handshake answers.
    let frozen = Gate()
    /// Shut while handshakes hang.
    let handshakes = Gate()
    /// The listening socket, closed while connections are refused.
    let listening: Listening

    /// Binds the listening socket; throws if the address is not a literal or the port is taken.
    /// - Parameters:
    ///   - configuration: the address, limits and TLS identity.
    ///   - handler: the application half: what the server does with its connections.
    ///   - observer: hears what the server sees on the wire and every fault it applies
    ///     (a wire history's recorder); nil by default.
    public init(
        configuration: Configuration, handler: some WebSocketServerHandler, observer: (any ServerWireObserver)? = nil
    ) throws(TransportError) {
        listening = try Listening(host: configuration.host, port: configuration.port)
        self.configuration = configuration
        self.handler = handler
        self.observer = observer
        self.state = Mutex(State())
        self.budget = BufferBudget(limit: configuration.maxBufferedBytes)
    }

    /// Serves until the task is cancelled; then every connection is reset and awaited.
    public func run() async {
        await AcceptLoop.run(
            listening: listening,
            acceptFailed: { state.withLock { $0.statistics.acceptFailures += 1 } },
            admit: admit, serve: { await self.serve($0) },
            stop: {
                for connection in state.withLock({ $0.connections }) { connection.reset(because: "server stopped") }
            })
    }

    /// Registers a new connection, or answers 503 and drops it when the server is full.
    private func admit(_ socket: TCPSocket) -> ServerConnection? {
        let (admitted, evicted): (ServerConnection?, ServerConnection?) = state.withLock { state in
            state.statistics.accepted += 1
            var evicted: ServerConnection?
            if state.connections.count >= configuration.maxConnections, configuration.evictsIdleHandshakes,
                let oldest = state.connections.firstIndex(where: { !$0.hasHead })
            {
                evicted = state.connections.remove(at: oldest)
                state.statistics.evictedIdle += 1
            }
            guard state.connections.count < configuration.maxConnections else {
                state.statistics.turnedAway += 1
                return (nil, nil)
            }
            state.nextID += 1
            let connection = ServerConnection(
                id: state.nextID, stream: socket, maxQueuedBytes: configuration.maxQueuedBytes, budget: budget,
                peerHost: observer == nil ? "" : socket.peerHost, observer: observer)
            state.connections.append(connection)
            budget.register(connection)
            return (connection, evicted)
        }
        // Its task sees the reset in its read and ends; it is already out of the count.
        evicted?.reset(because: "evicted: no request head while the server was full")
        if admitted == nil { AcceptLoop.turnAway(socket, plaintext: configuration.tls == nil) }
        return admitted
    }

    func unregister(_ connection: ServerConnection) {
        state.withLock { state in state.connections.removeAll { $0 === connection } }
        budget.unregister(connection.id)
    }

    // MARK: Observation

    /// Every connection, handshaking or open, in accept order.
    public var connections: [ServerConnection] { state.withLock { $0.connections } }

    /// The open connections (handshake done, not ended), in accept order.
    public var openConnections: [ServerConnection] { connections.filter(\.isOpen) }

    /// Counters since the server started.
    public var statistics: ServerStatistics {
        var statistics = state.withLock { $0.statistics }
        statistics.slowReaderResets = budget.slowReaderResets
        statistics.resets += statistics.slowReaderResets
        statistics.budgetDrops = budget.budgetDrops
        return statistics
    }

    /// Bytes the server holds for its connections now (queued and partly received), as
    /// ``Configuration/maxBufferedBytes`` counts them.
    public var bufferedBytes: Int { budget.heldBytes }
}

/// What a ``WebSocketServer`` has done, for tests and `livesim serve`'s admin endpoint.
public struct ServerStatistics: Hashable, Sendable {
    public var accepted = 0
    public var turnedAway = 0
    public var acceptFailures = 0
    public var handshakesCompleted = 0
    public var handshakesRefused = 0
    public var handshakeTimeouts = 0
    public var protocolFailures = 0
    /// Connections the server reset: by the reset fault (LiveTestServer's `resetAll(includingHandshakes:)`)
    /// and as slow readers (``slowReaderResets``).
    public var resets = 0
    /// Connections reset for not reading: their queue (pongs included) passed
    /// ``WebSocketServer/Configuration/maxQueuedBytes``. Counted in ``resets`` too.
    public var slowReaderResets = 0
    /// Connections dropped because the server held more than
    /// ``WebSocketServer/Configuration/maxBufferedBytes`` and they held the most.
    public var budgetDrops = 0
    /// Connections dropped silently by the idle timeout (LiveTestServer's `setIdleTimeout(_:)`).
    public var idleDrops = 0
    /// Connections reset, with no request head yet, to make room for a newcomer
    /// (``WebSocketServer/Configuration/evictsIdleHandshakes``).
    public var evictedIdle = 0
    /// Plain requests whose body was refused: chunked (411), too large (413), a bad
    /// `Content-Length` (400), or not arrived before the handshake timeout (408).
    public var badBodies = 0
}
