public import Foundation

/// Opens connections: the injection point between the manager and the network.
///
/// ```swift
/// struct MyTransport: Transport {
///     func connect(to endpoint: Endpoint) async throws(TransportError) -> any TransportConnection {
///         try await MySocket.open(endpoint.url, headers: endpoint.headers)
///     }
/// }
/// ```
///
/// The real adapter is `WebSocketTransport` (RFC 6455 over POSIX sockets);
/// the simulator's `SimulatedNetwork` is another. `connect` returns only after the
/// handshake completed, so a returned connection is open. It must honour task
/// cancellation: the manager cancels an attempt that outlives its connect timeout.
///
/// The manager opens every connection through ``connect(to:generation:)``, naming the
/// attempt it belongs to. Most transports need not care and implement only
/// ``connect(to:)``; one that logs, or a test network that must tell one attempt's socket
/// from the next, implements both.
public protocol Transport: Sendable {
    /// Opens a connection and completes the handshake.
    func connect(to endpoint: Endpoint) async throws(TransportError) -> any TransportConnection

    /// Opens a connection for the manager's connection attempt `generation` (a new one for
    /// every attempt, never reused) and completes the handshake.
    func connect(to endpoint: Endpoint, generation: Generation) async throws(TransportError)
        -> any TransportConnection
}

extension Transport {
    /// A transport that does not tell attempts apart opens every one the same way.
    public func connect(to endpoint: Endpoint, generation: Generation) async throws(TransportError)
        -> any TransportConnection
    {
        try await connect(to: endpoint)
    }
}

/// One open connection. Each is used by one manager generation and then dropped.
///
/// The three ways a connection ends map onto ``receive()``:
/// - a close frame → returns ``TransportEvent/closed(code:reason:)``;
/// - a reset or error → throws ``TransportError``;
/// - a silent peer → never returns: only ``ping(_:)`` with the manager's deadline tells.
///
/// A ping is a write like ``send(_:)``: ``ping(_:)`` returns once the ping is written, and
/// its pong comes back through ``receive()`` as ``TransportEvent/pong(_:)``, carrying the
/// number the ping was sent with. The caller keeps its own deadline; a pong that answers
/// no ping of ours is not reported. Why a write: a ping that waited for its pong needed a
/// task of its own beside the receive loop, for every heartbeat of a connection's life.
///
/// All methods must honour task cancellation, which is how the manager abandons a
/// connection it no longer wants.
public protocol TransportConnection: Sendable {
    /// Sends one message. Completes when the transport has taken it (not when the
    /// peer has processed it: over a network that is unknowable).
    func send(_ message: Message) async throws(TransportError)

    /// Waits for the next message or for the peer's close frame.
    func receive() async throws(TransportError) -> TransportEvent

    /// Sends a ping that carries `number` and returns once it is written (not when its pong
    /// arrives: ``receive()`` returns that pong as ``TransportEvent/pong(_:)``).
    ///
    /// The caller numbers its pings in increasing order on a connection. A pong answers its
    /// own ping and, since a peer answers frames in order and RFC 6455 §5.5.3 lets it answer
    /// only the latest of several pings, every ping sent before it.
    func ping(_ number: UInt64) async throws(TransportError)

    /// Starts the closing handshake with a code and reason, and releases the connection.
    /// Never throws: closing a broken connection is still closing it.
    func close(code: CloseCode, reason: String) async

    /// The server's answer to the opening handshake: the chosen subprotocol, the response
    /// headers. The manager shows it to the app as ``ConnectionManager/handshake``.
    var handshake: Handshake { get }
}

extension TransportConnection {
    /// A transport that does not report its handshake: no subprotocol, no headers.
    public var handshake: Handshake { Handshake() }
}

/// What ``TransportConnection/receive()`` returns.
public enum TransportEvent: Hashable, Sendable {
    /// A data message from the peer.
    case message(Message)
    /// The peer sent a close frame (the connection is over).
    case closed(code: CloseCode, reason: String)
    /// The pong to the ping sent with this number (``TransportConnection/ping(_:)``), which
    /// also answers every ping sent before it. A pong that answers no ping of ours
    /// (unsolicited, RFC 6455 §5.5.3) is never reported.
    case pong(UInt64)
}

/// Where to connect, and with what.
///
/// ```swift
/// let endpoint = Endpoint(url: URL(string: "wss://example.com/live")!,
///                         headers: [.init("Authorization", "Bearer abc")],
///                         subprotocols: ["v1.live"])
/// ```
public struct Endpoint: Hashable, Sendable, CustomStringConvertible {
    public var url: URL
    /// Extra request headers, e.g. a bearer token; kept in order so requests are reproducible.
    public var headers: [Header]
    /// Subprotocols offered, in preference order.
    public var subprotocols: [String]

    public init(url: URL, headers: [Header] = [], subprotocols: [String] = []) {
        self.url = url
        self.headers = headers
        self.subprotocols = subprotocols
    }

    /// Ordered header pairs (a dictionary's order would differ between runs).
    public struct Header: Hashable, Sendable {
        public var name: String
        public var value: String
        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    public var description: String { url.absoluteString }
}
