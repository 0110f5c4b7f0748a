package import LiveConnection

/// The knobs the test server's fault controls turn: package-wide, so the client's product
/// (`import WebSocketTransport`) shows only plain serving, and the controls' public face is
/// LiveTestServer's (`WebSocketServer+Faults.swift` there). Each fault is applied and told to
/// the observer in one place, so a recorded history and the server cannot disagree.
extension WebSocketServer {
    /// Applies `fault` and tells the observer. `.restart` is only told: the server above this
    /// one makes it of other faults. Only `.refuse(false)` can throw: the port cannot be re-bound.
    package func inject(_ fault: ServerFault) throws(TransportError) {
        switch fault {
        case .refuse(true):
            note(fault)
            listening.refuse()
            return
        case .refuse(false):
            if try listening.reopen() { note(fault) }
            return
        case .restart: break
        case .freeze: frozen.shut()
        case .thaw: frozen.open()
        case .hang(let hang): if hang { handshakes.shut() } else { handshakes.open() }
        case .handshakeStatus(let status):
            if let status {
                precondition((100...599).contains(status) && status != 101, "\(status) is not a refusal status")
            }
            state.withLock { $0.handshakeStatus = status }
        case .acceptThenClose(let code, let reason):
            state.withLock { $0.acceptThenClose = code.map { ClosePayload(code: $0, reason: reason) } }
        case .latency(let latency):
            precondition(latency >= .zero, "latency must not be negative, got \(latency)")
            state.withLock { $0.latency = latency }
        case .idleTimeout(let timeout):
            if let timeout { precondition(timeout > .zero, "an idle timeout must be above zero, got \(timeout)") }
            state.withLock { $0.idleTimeout = timeout }
        case .closeAll(let code, let reason):
            note(fault)
            for connection in openConnections { connection.close(code: code, reason: reason) }
            return
        case .resetAll(let includingHandshakes):
            note(fault)
            for connection in connections where includingHandshakes || connection.isOpen {
                state.withLock { $0.statistics.resets += 1 }
                connection.reset()
            }
            return
        }
        note(fault)
    }

    /// Tells the observer about a fault applied.
    package func note(_ fault: ServerFault) { observer?.observe(.fault(fault), on: nil) }

    /// True while frozen.
    package var frozenNow: Bool { !frozen.isOpen }

    /// The added latency in force.
    package var currentLatency: Duration { state.withLock { $0.latency } }

    /// The idle timeout in force (nil: none).
    package var currentIdleTimeout: Duration? { state.withLock { $0.idleTimeout } }

    /// Watches one open connection for the idle timeout; returns only when cancelled (the
    /// connection's end), so a dropped connection stays open and silent until the client
    /// closes it.
    func dropWhenIdle(_ connection: ServerConnection) async {
        // The timeout can be set or changed at any moment: look again at least this often.
        let period = Duration.milliseconds(100)
        while !Task.isCancelled {
            var wake = ContinuousClock.now + period
            if !connection.isSilenced, let timeout = currentIdleTimeout {
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
