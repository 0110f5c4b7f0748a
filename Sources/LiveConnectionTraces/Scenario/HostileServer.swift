public import LiveConnection

/// How a hostile server treats every connection while it is hostile: the servers that
/// fool a manager into a hot loop by letting it in and then failing it.
///
/// ```swift
/// network.apply(.hostile(.acceptThenClose(.internalError)))  // every handshake, then 1011 at once
/// network.apply(.hostile(.slowHandshake(.seconds(8))))        // handshakes take 8 s
/// network.apply(.hostile(nil))                                // healthy again
/// ```
///
/// A server that answers 401 forever is `failHandshakes(status: 401)` left on; a flapping
/// server is a schedule that alternates `hostile(…)` and `hostile(nil)`. What matters about
/// all of them: the handshake (or the TCP connection) succeeds, so a manager that counts
/// an open as success starts its backoff from the beginning every time (issue 10 measured
/// 44 connections in 3 s against a real 4001 server).
public enum HostileServer: Hashable, Sendable {
    /// Completes every handshake, then closes at once with this code (1000, 1011, 4001, 4003, …).
    case acceptThenClose(CloseCode)
    /// Completes every handshake, then sends a frame the client must reject (reserved bits
    /// set): the client fails the connection with 1002, as the real transport does.
    case malformedFrame
    /// Completes every handshake only after this long (more than the connect timeout: never in time).
    case slowHandshake(Duration)

    /// What the client sees on a connection this server has just accepted; nil when it
    /// sees nothing unusual after the handshake.
    package var ending: Result<TransportEvent, TransportError>? {
        switch self {
        case .acceptThenClose(let code): .success(.closed(code: code, reason: "hostile server"))
        case .malformedFrame: .failure(.protocolViolation(.protocolError, "reserved bits set"))
        case .slowHandshake: nil
        }
    }

    /// The extra handshake time.
    package var handshakeDelay: Duration {
        if case .slowHandshake(let delay) = self { delay } else { .zero }
    }
}
