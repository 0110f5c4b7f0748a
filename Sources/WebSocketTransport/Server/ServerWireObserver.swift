public import LiveConnection

/// Hears what a ``WebSocketServer`` sees on the wire and does to it, as it happens: the feed
/// of a wire history (`WireHistoryRecorder` in LiveTestServer writes one).
///
/// ```swift
/// struct Printer: ServerWireObserver {
///     func observe(_ event: ServerWireEvent, on connection: ServerConnection?) {
///         print(connection?.id as Any, event)
///     }
/// }
/// let server = try WebSocketServer(configuration: .init(), handler: EchoHandler(), observer: Printer())
/// ```
///
/// Called from the connection's own tasks (and from the fault controls' callers), so
/// concurrently for different connections and in order for one; it must not block.
public protocol ServerWireObserver: Sendable {
    /// `connection` is nil for server-wide events (faults).
    func observe(_ event: ServerWireEvent, on connection: ServerConnection?)
}

/// One observation of a ``ServerWireObserver``.
public enum ServerWireEvent: Sendable {
    /// The request head arrived (``ServerConnection/request`` holds it): an attempt.
    case requested
    /// The handshake was answered with this HTTP status (not 101).
    case refused(status: Int)
    /// The handshake did not complete: the client left, it timed out, or it failed.
    case abandoned(reason: String)
    /// The 101 went out.
    case opened
    /// A whole data message from the client.
    case received(Message)
    /// A ping from the client (the pong is queued, or held while frozen).
    case pinged
    /// A pong was written to the client.
    case pongSent
    /// A data message was written to the client.
    case sent(binary: Bool, size: Int)
    /// The client's close frame arrived (seen even while frozen or silenced).
    case closeReceived(code: CloseCode?, reason: String)
    /// The client's side of TCP ended (FIN, or a reset) with no close frame before it.
    case clientEnded
    /// A close frame was written to the client (its own or the echo of the client's).
    case closeSent(code: CloseCode?, reason: String)
    /// The server reset the connection.
    case reset(reason: String)
    /// The idle timeout dropped the connection silently.
    case silenced
    /// The server is done with the connection: its socket is shut.
    case done
    /// A fault control was applied.
    case fault(ServerFault)
}

/// A fault control a ``WebSocketServer`` applied (or, for a restart, the server above it).
public enum ServerFault: Hashable, Sendable {
    case freeze
    case thaw
    case refuse(Bool)
    case handshakeStatus(Int?)
    case hang(Bool)
    case acceptThenClose(code: CloseCode?, reason: String)
    case closeAll(code: CloseCode, reason: String)
    case resetAll(handshakes: Bool)
    case restart
    case idleTimeout(Duration?)
    case latency(Duration)
}
