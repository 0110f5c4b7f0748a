public import Foundation
public import LiveConnection
public import WebSocketTransport

public import typealias LiveConnection.Mutex

/// A WebSocket proxy in front of the user's own server, with the test server's faults aimed
/// at every connection or at one client.
///
/// ```swift
/// let proxy = try WebSocketProxy(configuration: .init(upstream: URL(string: "ws://127.0.0.1:8080/live")!))
/// try await proxy.checkUpstream()                   // unreachable: a clear error now, not per client later
/// try await withThrowingTaskGroup(of: Void.self) { group in
///     group.addTask { await proxy.run() }
///     // clients connect to ws://127.0.0.1:\(proxy.port)/?client=phone-a
///     proxy.freeze(.client("phone-a"))              // phone-a's connection goes silent; others flow
///     proxy.close(.client("phone-a"), code: 4003, reason: "forbidden")
///     group.cancelAll()
/// }
/// ```
///
/// It works at frame level: it answers the client's handshake as a server (after the user's
/// server has accepted the same request), opens its own connection upstream as a client, and
/// decodes and re-encodes every frame both ways with the package's RFC 6455 codec. Pings and
/// pongs are forwarded, not answered, so the two ends still judge each other's liveness;
/// messages arrive whole (fragments are reassembled, as an intermediary may); compression is
/// not negotiated on either link. Because the proxy holds whole frames, a close with a chosen
/// code, slicing a frame into pieces, and latency are as natural as a reset or a freeze.
///
/// Bounded: each direction of a connection queues at most
/// ``Configuration/maxQueuedBytes`` (plus one frame; a full queue stops reading, so the sender
/// is slowed by TCP rather than anything being lost), a message is at most
/// ``Configuration/maxMessageSize``, all connections together hold at most about
/// ``Configuration/maxBufferedBytes`` (past it the largest holders are reset), and every wait
/// on a peer has a deadline: the request head, the upstream's handshake, each write, the close
/// handshake. Every event passes through one ``ProxyObserver``.
public final class WebSocketProxy: Sendable {
    public struct Configuration: Sendable {
        /// The user's server: ws:// or wss://, with a host, an optional port and path.
        public var upstream: URL
        /// Where the proxy listens: an IPv4 or IPv6 literal, loopback by default.
        public var host: String
        /// 0 lets the system choose; read it from ``WebSocketProxy/port``.
        public var port: UInt16
        /// Serve wss:// to clients with this identity; nil serves ws://.
        public var tls: TLSServerContext?
        /// How the proxy verifies a wss:// upstream.
        public var upstreamTLS: TLSConfiguration
        /// The largest message relayed either way; bigger fails its sender's link with 1009.
        public var maxMessageSize: Int
        /// From TCP accept to the client's complete request head.
        public var handshakeTimeout: Duration
        /// The upstream's TCP, TLS and handshake, together; past it the client gets 504.
        public var connectTimeout: Duration
        /// How long each write may wait for its peer to take bytes before both links are dropped.
        public var writeTimeout: Duration
        /// How long a close handshake may take once a close frame has passed.
        public var closeTimeout: Duration
        /// Connections (handshaking or open) at once; more are answered 503.
        public var maxConnections: Int
        /// Payload bytes queued in one direction of one connection before its reader waits.
        public var maxQueuedBytes: Int
        /// Bytes held for all connections together (queues and unfinished messages); past it
        /// the connections holding the most are reset.
        public var maxBufferedBytes: Int

        public init(
            upstream: URL, host: String = "127.0.0.1", port: UInt16 = 0, tls: TLSServerContext? = nil,
            upstreamTLS: TLSConfiguration = TLSConfiguration(), maxMessageSize: Int = 1 << 20,
            handshakeTimeout: Duration = .seconds(10), connectTimeout: Duration = .seconds(10),
            writeTimeout: Duration = .seconds(10), closeTimeout: Duration = .seconds(2), maxConnections: Int = 1024,
            maxQueuedBytes: Int = 1 << 20, maxBufferedBytes: Int = 256 << 20
        ) {
            precondition(
                maxMessageSize >= 0 && maxConnections > 0 && maxQueuedBytes > 0 && maxBufferedBytes > 0,
                "proxy limits must be positive")
            self.upstream = upstream
            self.host = host
            self.port = port
            self.tls = tls
            self.upstreamTLS = upstreamTLS
            self.maxMessageSize = maxMessageSize
            self.handshakeTimeout = handshakeTimeout
            self.connectTimeout = connectTimeout
            self.writeTimeout = writeTimeout
            self.closeTimeout = closeTimeout
            self.maxConnections = maxConnections
            self.maxQueuedBytes = maxQueuedBytes
            self.maxBufferedBytes = maxBufferedBytes
        }
    }

    struct State {
        var connections: [ProxyConnection] = []
        var nextID: UInt64 = 0
        var faults = ProxyFaults()
        var statistics = ProxyStatistics()
    }

    public let configuration: Configuration
    /// The port the proxy listens on.
    public var port: UInt16 { listening.port }
    /// The upstream URL taken apart.
    let upstream: WebSocketURL
    let observer: (any ProxyObserver)?
    let state: Mutex<State>
    let budget: BufferBudget
    let random = SharedRandom(SystemRandomSource())
    /// Shut while every connection is frozen.
    let frozen = Gate()
    /// Shut while every handshake hangs.
    let hung = Gate()
    /// The listening socket, closed while connections are refused.
    let listening: Listening

    /// Binds the listening socket; throws if the upstream URL is not ws:// or wss:// with a
    /// host, the address is not a literal, or the port is taken. The upstream is not contacted
    /// here: ``checkUpstream()`` does that.
    public init(configuration: Configuration, observer: (any ProxyObserver)? = nil) throws(TransportError) {
        upstream = try WebSocketURL(configuration.upstream)
        listening = try Listening(host: configuration.host, port: configuration.port)
        self.configuration = configuration
        self.observer = observer
        self.state = Mutex(State())
        self.budget = BufferBudget(limit: configuration.maxBufferedBytes)
    }

    /// Opens a TCP connection (and TLS, for wss://) to the upstream and closes it again: the
    /// error a user should see at start when the server is not there (ECONNREFUSED, a name that
    /// does not resolve, a certificate it does not trust), within ``Configuration/connectTimeout``.
    public func checkUpstream() async throws(TransportError) {
        let deadline = ContinuousClock.now + configuration.connectTimeout
        let socket = try await TCPSocket.connect(host: upstream.host, port: upstream.port, until: deadline)
        if upstream.isSecure {
            let stream = try await TLSStream.handshake(
                over: socket, host: upstream.host, configuration: configuration.upstreamTLS, until: deadline)
            stream.shutdown()
        } else {
            socket.shutdown()
        }
    }

    /// Serves until the task is cancelled; then every connection is reset and awaited.
    public func run() async {
        await AcceptLoop.run(
            listening: listening,
            acceptFailed: { state.withLock { $0.statistics.acceptFailures += 1 } },
            admit: admit, serve: { await self.serve($0) },
            stop: {
                for connection in state.withLock({ $0.connections }) { connection.reset(because: "proxy stopped") }
            })
    }

    /// Registers a new connection, or answers 503 and drops it when the proxy is full.
    private func admit(_ socket: TCPSocket) -> ProxyConnection? {
        let admitted: ProxyConnection? = state.withLock { state in
            state.statistics.accepted += 1
            guard state.connections.count < configuration.maxConnections else {
                state.statistics.turnedAway += 1
                return nil
            }
            state.nextID += 1
            let connection = ProxyConnection(
                id: state.nextID, stream: socket, address: socket.peerAddress ?? "unknown", proxy: self)
            state.connections.append(connection)
            budget.register(connection)
            return connection
        }
        if admitted == nil { AcceptLoop.turnAway(socket, plaintext: configuration.tls == nil) }
        return admitted
    }

    func unregister(_ connection: ProxyConnection) {
        state.withLock { state in state.connections.removeAll { $0 === connection } }
        budget.unregister(connection.id)
    }

    /// Passes one event to the observer.
    func note(_ connection: ProxyConnection, _ kind: ProxyEvent.Kind) {
        guard let observer else { return }
        observer.observe(ProxyEvent(connection: connection.id, client: connection.client, at: .now, kind: kind))
    }

    /// Tells the observer a fault control was applied (before it acts: its record comes first).
    func note(_ fault: ProxyFault, aimedAt target: FaultTarget) {
        observer?.observe(fault, aimedAt: target)
    }

    func count(_ update: (inout ProxyStatistics) -> Void) { state.withLock { update(&$0.statistics) } }

    // MARK: Observation

    /// Every connection, handshaking or open, in accept order.
    var connections: [ProxyConnection] { state.withLock { $0.connections } }

    /// The connections open on both links now, in accept order: their number and client identity.
    public var openConnections: [(id: UInt64, client: String)] {
        connections.filter(\.isOpen).map { ($0.id, $0.client) }
    }

    /// Counters since the proxy started.
    public var statistics: ProxyStatistics {
        var statistics = state.withLock { $0.statistics }
        statistics.budgetDrops = budget.budgetDrops
        statistics.open = connections.filter(\.isOpen).count
        return statistics
    }

    /// Bytes held for all connections now, as ``Configuration/maxBufferedBytes`` counts them.
    public var bufferedBytes: Int { budget.heldBytes }
}

/// What a ``WebSocketProxy`` has done: for tests and the admin endpoint's `/stats`. Everything
/// the proxy drops is counted here.
public struct ProxyStatistics: Hashable, Sendable {
    public var accepted = 0
    /// Answered 503: more than ``WebSocketProxy/Configuration/maxConnections`` at once.
    public var turnedAway = 0
    public var acceptFailures = 0
    public var handshakesCompleted = 0
    /// Handshakes the proxy refused: bad requests, and the `handshake-status` fault.
    public var handshakesRefused = 0
    public var handshakeTimeouts = 0
    /// Handshakes answered 502 or 504: the upstream could not be reached, timed out, or
    /// answered something that is not a WebSocket upgrade.
    public var upstreamFailures = 0
    /// Handshakes the upstream itself refused with an HTTP status, passed on to the client.
    public var upstreamRefusals = 0
    /// Links failed for breaking RFC 6455 (answered with 1002, 1007 or 1009).
    public var protocolFailures = 0
    /// Connections reset by the `reset` fault.
    public var resets = 0
    /// Connections reset because all of them together held more than
    /// ``WebSocketProxy/Configuration/maxBufferedBytes``, and these the most.
    public var budgetDrops = 0
    /// Connections dropped because a peer took nothing for ``WebSocketProxy/Configuration/writeTimeout``.
    public var stalledWrites = 0
    /// Frames dropped because a close frame had already been sent the same way (nothing may follow it).
    public var discardedAfterClose = 0
    /// Connections open on both links now.
    public var open = 0
}
