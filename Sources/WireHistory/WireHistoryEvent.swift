/// One thing a real server saw on the wire, or did to it: a line of a wire history.
///
/// ```swift
/// let record = WireHistoryRecord(at: .milliseconds(1500), event: .attempt(connection: 3, client: "a", path: "/live?client=a"))
/// record.line   // {"client":"a","conn":3,"e":"attempt","path":"\/live?client=a","t":1.5}
/// ```
///
/// The vocabulary is the simulated wire's (`WireEvent`), seen from the server's side of a
/// real socket: every connection is numbered from 1 in accept order and that number names
/// both the attempt and the socket it becomes. What the server cannot see (when a client
/// learnt that a socket ended) is recorded as the facts that show it (the client's answer to
/// our close frame, its FIN); `docs/wire-history.md` says how a judge reads them.
public enum WireHistoryEvent: Hashable, Sendable {
    /// A connection's request head arrived: the client attempted to connect, as `client`.
    case attempt(connection: Int, client: String, path: String)
    /// The attempt ended before a socket was open: `handshake N` (the server answered with
    /// that HTTP status), `abandoned` (the client left first), `timeout` (no complete request in time).
    case attemptFailed(connection: Int, reason: String)
    /// The 101 went out: the connection is a socket.
    case opened(connection: Int)
    /// A whole data message from the client (`text` for text messages, clipped to
    /// ``WireHistoryRecord/textLimit`` bytes; `size` is the full size in bytes).
    case clientMessage(connection: Int, binary: Bool, size: Int, text: String?)
    /// The client pinged.
    case clientPing(connection: Int)
    /// The server wrote a pong: the client's ping was answered.
    case pong(connection: Int)
    /// The server wrote a data message to the client.
    case serverMessage(connection: Int, binary: Bool, size: Int)
    /// The client's close frame arrived (its code, if it gave one).
    case clientClose(connection: Int, code: Int?, reason: String)
    /// The client's side of TCP ended (FIN or reset) without a close frame first.
    case clientEnd(connection: Int)
    /// The server wrote a close frame it started (not the echo of the client's).
    case serverClose(connection: Int, code: Int, reason: String)
    /// The server reset the connection (no close frame): a fault, a restart, a slow reader.
    case serverReset(connection: Int, reason: String)
    /// The idle timeout dropped the connection silently: nothing reaches the client any more.
    case idleDrop(connection: Int)
    /// The server is done with the connection (its socket shut): whatever the client does on it is unseen.
    case serverDone(connection: Int)
    /// A fault control was applied (by a seeded schedule or the admin endpoint): to every
    /// connection, or (`client` not nil, a proxy aiming at one client) to that client's only.
    case fault(WireFault, client: String? = nil)
    /// The run is over (the judge's end instant): what follows is teardown.
    case end
}

/// A fault a server applied, as a wire history records it.
///
/// ```swift
/// WireFault.handshakeStatus(503).name   // "handshake-status"
/// ```
public enum WireFault: Hashable, Sendable {
    /// Sockets stay open; nothing is read (the wire is still watched), written or answered.
    case freeze
    case thaw
    /// The listening socket closed (true: clients get ECONNREFUSED from the kernel, and the
    /// server sees none of their attempts) or open again (false).
    case refuse(Bool)
    /// Every later handshake answered with this status (nil: accepted again).
    case handshakeStatus(Int?)
    /// Handshakes left unanswered (true) or answered again (false).
    case hang(Bool)
    /// Every later connection opens and is at once closed with this code (nil: no more).
    case acceptThenClose(code: Int?, reason: String)
    /// Every open connection closed with this code and reason.
    case closeAll(code: Int, reason: String)
    /// Every open connection reset (with `handshakes`, those handshaking too).
    case resetAll(handshakes: Bool)
    /// The server restarted: every connection reset, subscriptions forgotten.
    case restart
    /// A connection with no frame either way for this long is dropped silently (nil: never).
    case idleTimeout(Duration?)
    /// Every frame the server sends is delayed by this much (zero: no more latency).
    case latency(Duration)
    /// Every frame is written in pieces of `bytes` with `pause` between them (the proxy's
    /// slicing; nil bytes: whole frames again).
    case slice(bytes: Int?, pause: Duration)

    /// Whether the fault can be aimed at one client: not those of the listening socket or the
    /// whole server (refuse, restart, idle timeout).
    public var canBeScoped: Bool {
        switch self {
        case .refuse, .restart, .idleTimeout: false
        case .freeze, .thaw, .handshakeStatus, .hang, .acceptThenClose, .closeAll, .resetAll, .latency, .slice: true
        }
    }

    /// The fault's name in a history line (`"fault":"…"`).
    public var name: String {
        switch self {
        case .freeze: "freeze"
        case .thaw: "thaw"
        case .refuse: "refuse"
        case .handshakeStatus: "handshake-status"
        case .hang: "hang"
        case .acceptThenClose: "accept-then-close"
        case .closeAll: "close-all"
        case .resetAll: "reset-all"
        case .restart: "restart"
        case .idleTimeout: "idle-timeout"
        case .latency: "latency"
        case .slice: "slice"
        }
    }
}

/// One line of a wire history: an event at its instant, counted from the history's origin
/// on a monotonic clock.
///
/// ```swift
/// let record = try WireHistoryRecord(line: #"{"t":0.25,"e":"open","conn":1}"#)
/// record.event   // .opened(connection: 1)
/// ```
public struct WireHistoryRecord: Hashable, Sendable {
    /// Since the history's origin; microsecond resolution in the file.
    public var at: Duration
    public var event: WireHistoryEvent

    public init(at: Duration, event: WireHistoryEvent) {
        self.at = at
        self.event = event
    }

    /// Client text longer than this many UTF-8 bytes is clipped in the history (its size is kept).
    public static let textLimit = 4096
}
