public import LiveConnection
public import WebSocketTransport

public import typealias LiveConnection.Mutex

/// One thing that happened on a proxied connection, as the proxy saw it on the wire.
///
/// ```swift
/// struct Printer: ProxyObserver {
///     func observe(_ event: ProxyEvent) { print(event.connection, event.client, event.kind) }
/// }
/// let proxy = try WebSocketProxy(configuration: configuration, observer: Printer())
/// // 1 "phone-a" attempt(resource: "/live?client=phone-a", address: "127.0.0.1:53122")
/// // 1 "phone-a" handshake(status: 101)
/// // 1 "phone-a" opened
/// // 1 "phone-a" frame(.received, .client, opcode: .text, size: 42)
/// ```
///
/// Every event of every connection passes through the proxy's one ``ProxyObserver``, so a
/// wire history recorder plugs in there and sees the same vocabulary the simulated wire
/// records: the attempt with its URL and the client's identity, the status the handshake was
/// answered with, the open, each frame both ways with its opcode and size (pings, pongs and
/// close frames included), closes with their code, reason and which side sent them, resets,
/// and the faults the proxy applied.
public struct ProxyEvent: Hashable, Sendable {
    /// The proxy's number for the client's TCP connection, from 1 in accept order.
    public var connection: UInt64
    /// Who the client is (``ClientIdentity``): the same across its reconnections when it says so.
    public var client: String
    /// When the proxy saw it, on the monotonic clock.
    public var at: ContinuousClock.Instant
    public var kind: Kind

    public init(connection: UInt64, client: String, at: ContinuousClock.Instant, kind: Kind) {
        self.connection = connection
        self.client = client
        self.at = at
        self.kind = kind
    }

    /// The two links of a proxied connection.
    public enum Link: String, Hashable, Sendable {
        /// Between the client and the proxy.
        case client
        /// Between the proxy and the user's server.
        case upstream
    }

    /// Whether a frame came to the proxy over a link or left it over one.
    public enum Direction: String, Hashable, Sendable {
        case received
        case sent
    }

    /// Who ended a connection with a close frame.
    public enum Closer: String, Hashable, Sendable {
        case client
        case upstream
        /// The proxy itself: a fault (`close`, `accept-then-close`), or a peer's protocol error.
        case proxy
    }

    public enum Kind: Hashable, Sendable {
        /// A client's request head arrived: its target (path and query, as sent) and its
        /// source address (`host:port`).
        case attempt(resource: String, address: String)
        /// The status the client's handshake was answered with: 101, or the refusal (a fault's
        /// status, the user's server's own refusal passed on, 502 or 504 when it cannot be reached).
        case handshake(status: Int)
        /// Both links are open and frames flow.
        case opened
        /// A whole frame (a data message, reassembled, or a control frame) on one link.
        case frame(Direction, Link, opcode: Opcode, size: Int)
        /// The text of a text message the client sent, whole (its ``frame(_:_:opcode:size:)``
        /// event follows): a history keeps the subscribe and resume frames a judge reads.
        case clientText(String)
        /// A close frame is being written to a link (told just before the write, so that it
        /// comes before the peer's answer): its code (nil when it had none) and reason. On the
        /// client's link this is when the client can first read it (after latency, a freeze,
        /// what was queued before it).
        case closeSent(Link, code: CloseCode?, reason: String)
        /// The proxy reset both links of its own accord (the `reset` fault, the buffer
        /// budget, the proxy stopping): why.
        case resetByProxy(String)
        /// A close frame: who sent it, its code (nil when it had none) and reason.
        case closed(by: Closer, code: CloseCode?, reason: String)
        /// A link ended without a close frame: `detail` is the errno name, or `EOF` when the
        /// peer closed TCP.
        case reset(Link, detail: String)
        /// A fault the proxy applied to this connection, in the admin route's words
        /// (`freeze`, `close 4003 forbidden`, `reset`, `latency 200ms`, …).
        case fault(String)
        /// The connection is over on both links; why, in one line.
        case ended(String)
    }
}

/// Where every ``ProxyEvent`` of a ``WebSocketProxy`` goes: the one point a recorder plugs into.
///
/// ```swift
/// final class Counter: ProxyObserver {
///     let frames = Mutex(0)
///     func observe(_ event: ProxyEvent) {
///         if case .frame = event.kind { frames.withLock { $0 += 1 } }
///     }
/// }
/// ```
///
/// Called synchronously on the connection's task, in the order things happened on that
/// connection (connections call concurrently). It must not block: a recorder that writes to
/// a file queues the events, bounds its queue and counts what it drops.
public protocol ProxyObserver: Sendable {
    func observe(_ event: ProxyEvent)
    /// A fault control was applied, once per call and before it acts, whether or not a
    /// connection is open for it to touch.
    func observe(_ fault: ProxyFault, aimedAt target: FaultTarget)
}

extension ProxyObserver {
    /// Faults are heard per connection through ``ProxyEvent/Kind/fault(_:)`` too: an observer
    /// that needs only those leaves this out.
    public func observe(_ fault: ProxyFault, aimedAt target: FaultTarget) {}
}
