public import LiveConnection

/// The test-server controls: seed 000's faults, and the simulated network's, on real sockets.
///
/// ```swift
/// server.freeze()                                  // sockets open; nothing read, written or answered
/// server.thaw()
/// server.closeAll(code: .init(4001), reason: "token expired")
/// server.resetAll()                                // every client sees ECONNRESET
/// server.failHandshakes(status: 503)               // later handshakes get HTTP 503
/// ```
extension WebSocketServer {
    /// Every open connection starts the close handshake with this code and reason.
    public func closeAll(code: CloseCode, reason: String) {
        note(.closeAll(code: code, reason: reason))
        for connection in openConnections { connection.close(code: code, reason: reason) }
    }

    /// Every open connection (and, with `includingHandshakes`, every one still
    /// handshaking) is dropped with a TCP reset: no close frame.
    public func resetAll(includingHandshakes: Bool = false) {
        note(.resetAll(handshakes: includingHandshakes))
        for connection in connections where includingHandshakes || connection.isOpen {
            state.withLock { $0.statistics.resets += 1 }
            connection.reset()
        }
    }

    /// Sockets stay open, but nothing is read or written and no handshake is answered
    /// (no pongs either: a client's heartbeat must notice) until ``thaw()``. What is sent
    /// meanwhile waits in the connections' queues, and flows on thaw.
    public func freeze() {
        note(.freeze)
        frozen.shut()
    }

    /// Everything held by a freeze flows again.
    public func thaw() {
        note(.thaw)
        frozen.open()
    }

    /// True while frozen.
    public var isFrozen: Bool { !frozen.isOpen }

    /// Refuse (true: the listening socket is closed, clients get ECONNREFUSED) or accept
    /// again (false: the same port is bound anew). Throws if the port cannot be re-bound.
    public func refuseConnections(_ refuse: Bool) throws(TransportError) {
        if refuse {
            note(.refuse(true))
            listening.refuse()
        } else if try listening.reopen() {
            note(.refuse(false))
        }
    }

    /// Answer every later handshake with this HTTP status (nil: accept again).
    public func failHandshakes(status: Int?) {
        if let status {
            precondition((100...599).contains(status) && status != 101, "\(status) is not a refusal status")
        }
        note(.handshakeStatus(status))
        state.withLock { $0.handshakeStatus = status }
    }

    /// Leave handshakes unanswered (true), or answer them, and those already waiting (false).
    public func hangHandshakes(_ hang: Bool) {
        note(.hang(hang))
        if hang { handshakes.shut() } else { handshakes.open() }
    }

    /// Every later connection completes its handshake and is at once closed with this
    /// code (a flapping server); nil stops it.
    public func acceptThenClose(code: CloseCode?, reason: String = "") {
        note(.acceptThenClose(code: code, reason: reason))
        state.withLock { $0.acceptThenClose = code.map { ClosePayload(code: $0, reason: reason) } }
    }

    /// Delay every frame the server sends by this much (handshake answers and pongs by
    /// twice this, a round trip, as in the simulated network).
    public func setLatency(_ latency: Duration) {
        precondition(latency >= .zero, "latency must not be negative, got \(latency)")
        note(.latency(latency))
        state.withLock { $0.latency = latency }
    }

    /// The current added latency.
    public var latency: Duration { state.withLock { $0.latency } }

    /// A connection with no frame either way for `timeout` is dropped silently, as a NAT
    /// gateway forgets an idle flow (the simulated network's idle timeout): no close frame,
    /// no FIN, no pongs from then on; what the client sends is discarded. A client whose
    /// heartbeat interval is shorter never goes idle. It applies to open connections at once,
    /// counting from their last frame; nil turns it off (connections already dropped stay so).
    public func setIdleTimeout(_ timeout: Duration?) {
        if let timeout { precondition(timeout > .zero, "an idle timeout must be above zero, got \(timeout)") }
        note(.idleTimeout(timeout))
        state.withLock { $0.idleTimeout = timeout }
    }

    /// Tells the observer about a fault applied (a restart, applied by the server above this
    /// one, tells it here before the resets it is made of).
    public func note(_ fault: ServerFault) { observer?.observe(.fault(fault), on: nil) }

    /// The idle timeout in force (nil: none).
    public var idleTimeout: Duration? { state.withLock { $0.idleTimeout } }

    /// Watches one open connection for the idle timeout; returns only when cancelled (the
    /// connection's end), so a dropped connection stays open and silent until the client
    /// closes it.
    func dropWhenIdle(_ connection: ServerConnection) async {
        // The timeout can be set or changed at any moment: look again at least this often.
        let period = Duration.milliseconds(100)
        while !Task.isCancelled {
            var wake = ContinuousClock.now + period
            if !connection.isSilenced, let timeout = idleTimeout {
                let due = connection.lastTraffic + timeout
                if ContinuousClock.now >= due {
                    if connection.silence() {
                        state.withLock { $0.statistics.idleDrops += 1 }
                        connection.observe(.silenced)
                    }
                    continue
                }
                wake = min(wake, due)
            }
            _ = await IOReactor.shared.wait(for: .readable, on: -1, until: wake)
        }
    }
}
