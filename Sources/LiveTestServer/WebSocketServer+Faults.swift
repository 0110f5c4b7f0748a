public import LiveConnection
public import WebSocketTransport

/// The test-server controls: seed 000's faults, and the simulated network's, on real sockets.
///
/// ```swift
/// server.freeze()                                  // sockets open; nothing read, written or answered
/// server.thaw()
/// server.closeAll(code: .init(4001), reason: "token expired")
/// server.resetAll()                                // every client sees ECONNRESET
/// server.failHandshakes(status: 503)               // later handshakes get HTTP 503
/// ```
///
/// They live here, in the test server's product, not in `WebSocketTransport`: an app that
/// imports the transport to talk to its backend sees the client and plain serving, and no
/// switch that freezes a server. Each one is a ``ServerFault`` injected into the server,
/// which applies it and tells its observer (a recorded history sees it in order).
extension WebSocketServer {
    /// Every open connection starts the close handshake with this code and reason.
    public func closeAll(code: CloseCode, reason: String) { apply(.closeAll(code: code, reason: reason)) }

    /// Every open connection (and, with `includingHandshakes`, every one still
    /// handshaking) is dropped with a TCP reset: no close frame.
    public func resetAll(includingHandshakes: Bool = false) { apply(.resetAll(handshakes: includingHandshakes)) }

    /// Sockets stay open, but nothing is read or written and no handshake is answered
    /// (no pongs either: a client's heartbeat must notice) until ``thaw()``. What is sent
    /// meanwhile waits in the connections' queues, and flows on thaw.
    public func freeze() { apply(.freeze) }

    /// Everything held by a freeze flows again.
    public func thaw() { apply(.thaw) }

    /// True while frozen.
    public var isFrozen: Bool { frozenNow }

    /// Refuse (true: the listening socket is closed, clients get ECONNREFUSED) or accept
    /// again (false: the same port is bound anew). Throws if the port cannot be re-bound.
    public func refuseConnections(_ refuse: Bool) throws(TransportError) { try inject(.refuse(refuse)) }

    /// Answer every later handshake with this HTTP status, 100–599 but not 101 (nil: accept again).
    public func failHandshakes(status: Int?) { apply(.handshakeStatus(status)) }

    /// Leave handshakes unanswered (true), or answer them, and those already waiting (false).
    public func hangHandshakes(_ hang: Bool) { apply(.hang(hang)) }

    /// Every later connection completes its handshake and is at once closed with this
    /// code (a flapping server); nil stops it.
    public func acceptThenClose(code: CloseCode?, reason: String = "") {
        apply(.acceptThenClose(code: code, reason: reason))
    }

    /// Delay every frame the server sends by this much, zero or more (handshake answers and
    /// pongs by twice this, a round trip, as in the simulated network).
    public func setLatency(_ latency: Duration) { apply(.latency(latency)) }

    /// The current added latency.
    public var latency: Duration { currentLatency }

    /// A connection with no frame either way for `timeout` (above zero) is dropped silently,
    /// as a NAT gateway forgets an idle flow (the simulated network's idle timeout): no close
    /// frame, no FIN, no pongs from then on; what the client sends is discarded. A client
    /// whose heartbeat interval is shorter never goes idle. It applies to open connections at
    /// once, counting from their last frame; nil turns it off (connections already dropped stay so).
    public func setIdleTimeout(_ timeout: Duration?) { apply(.idleTimeout(timeout)) }

    /// The idle timeout in force (nil: none).
    public var idleTimeout: Duration? { currentIdleTimeout }

    /// Every fault but accepting again after a refusal: none of them can fail.
    private func apply(_ fault: ServerFault) {
        // Only `.refuse(false)` throws (re-binding the port), and it goes through refuseConnections.
        try? inject(fault)
    }
}
