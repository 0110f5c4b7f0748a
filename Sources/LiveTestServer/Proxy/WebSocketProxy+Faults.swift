public import LiveConnection
import WebSocketTransport

/// The fault controls of ``WebSocketProxy``: `livesim serve`'s vocabulary, each aimed at every
/// connection or at one client.
///
/// ```swift
/// proxy.freeze(.client("phone-a"))                                // its links go silent; others flow
/// proxy.thaw(.client("phone-a"))
/// proxy.close(.client("phone-a"), code: 4003, reason: "forbidden")
/// proxy.failHandshakes(.all, status: 503)                         // later handshakes answered 503
/// proxy.setLatency(.client("phone-b"), .milliseconds(200))
/// ```
///
/// Actions (``close(_:code:reason:)``, ``reset(_:)``) act on the connections open now.
/// Settings (freeze, hang, handshake status, accept-then-close, latency, slicing) stand until
/// changed: they apply to the connections open now where that means something, and to every
/// later connection of the target, so a client that reconnects meets the same fault. A
/// client's own setting wins over the one for all; freeze and hang hold a connection when
/// either holds it.
extension WebSocketProxy {
    /// Clients with standing faults of their own, at most: each is a few entries in memory.
    public static let maximumTargetedClients = 10_000

    /// Whether a setting for `target` can be added (``maximumTargetedClients`` is not reached,
    /// or the client has one already).
    public func canTarget(_ target: FaultTarget) -> Bool {
        guard case .client(let identity) = target else { return true }
        let clients = state.withLock { $0.faults.targetedClients }
        return clients.contains(identity) || clients.count < Self.maximumTargetedClients
    }

    /// Every open connection of the target gets a close frame with this code and reason (as if
    /// the user's server had sent it); its upstream link is closed with 1001.
    public func close(_ target: FaultTarget, code: CloseCode, reason: String) {
        note(.close(code: code, reason: reason), aimedAt: target)
        for connection in connections where connection.isOpen && target.matches(connection.client) {
            note(connection, .fault("close \(code.rawValue) \(reason)"))
            connection.closeFromProxy(code: code, reason: reason)
        }
    }

    /// Every open connection of the target is dropped with a TCP reset on both links: no close frame.
    public func reset(_ target: FaultTarget) {
        note(.reset, aimedAt: target)
        for connection in connections where connection.isOpen && target.matches(connection.client) {
            count { $0.resets += 1 }
            note(connection, .fault("reset"))
            connection.reset(because: "reset by the proxy")
        }
    }

    /// The target's links stay open but nothing is read, written or forwarded, and no handshake
    /// is answered (no pongs either: a client's heartbeat must notice) until ``thaw(_:)``.
    public func freeze(_ target: FaultTarget) {
        note(.freeze, aimedAt: target)
        let affected: [ProxyConnection] = state.withLock { state in
            state.faults.frozen.insert(target)
            return state.connections.filter { target.matches($0.client) }
        }
        if target == .all { frozen.shut() }
        for connection in affected {
            note(connection, .fault("freeze"))
            if target != .all { connection.frozen.shut() }
        }
    }

    /// Lifts a freeze; ``FaultTarget/all`` lifts every freeze, of all and of each client.
    public func thaw(_ target: FaultTarget) {
        note(.thaw, aimedAt: target)
        let affected: [ProxyConnection] = state.withLock { state in
            if target == .all { state.faults.frozen = [] } else { state.faults.frozen.remove(target) }
            return state.connections.filter { target.matches($0.client) }
        }
        for connection in affected {
            note(connection, .fault("thaw"))
            let stillFrozen = state.withLock { $0.faults.frozen.contains(.client(connection.client)) }
            if !stillFrozen { connection.frozen.open() }
        }
        if target == .all { frozen.open() }
    }

    /// True while every connection is frozen (``freeze(_:)`` with ``FaultTarget/all``).
    public var isFrozen: Bool { !frozen.isOpen }

    /// Refuse (true: the listening socket is closed, clients get ECONNREFUSED) or accept again
    /// (false: the same port is bound anew). For every client only: a client's identity is in
    /// its request, which arrives after its TCP connection was accepted.
    public func refuseConnections(_ refuse: Bool) throws(TransportError) {
        if refuse {
            listening.refuse()
        } else {
            _ = try listening.reopen()
        }
        note(.refuse(refuse), aimedAt: .all)
    }

    /// Answer the target's later handshakes with this HTTP status instead of passing them
    /// upstream (nil: the setting is removed).
    public func failHandshakes(_ target: FaultTarget, status: Int?) {
        if let status {
            precondition((100...599).contains(status) && status != 101, "\(status) is not a refusal status")
        }
        note(.handshakeStatus(status), aimedAt: target)
        state.withLock { $0.faults.handshakeStatus[target] = status }
    }

    /// Leave the target's handshakes unanswered (true), or answer them, those waiting too (false).
    public func hangHandshakes(_ target: FaultTarget, _ hang: Bool) {
        note(.hang(hang), aimedAt: target)
        let affected: [ProxyConnection] = state.withLock { state in
            if hang { state.faults.hung.insert(target) } else { state.faults.hung.remove(target) }
            return state.connections.filter { target.matches($0.client) }
        }
        if target == .all {
            if hang { hung.shut() } else { hung.open() }
            return
        }
        for connection in affected { if hang { connection.hung.shut() } else { connection.hung.open() } }
    }

    /// The target's later connections complete their handshake and are at once closed with
    /// this code (a flapping server); nil removes the setting.
    public func acceptThenClose(_ target: FaultTarget, code: CloseCode?, reason: String = "") {
        note(.acceptThenClose(code: code, reason: reason), aimedAt: target)
        state.withLock { $0.faults.acceptThenClose[target] = code.map { ClosePayload(code: $0, reason: reason) } }
    }

    /// Delay every frame relayed on the target's connections, each way, by this much (the 101
    /// by twice it: a round trip); nil removes the setting.
    public func setLatency(_ target: FaultTarget, _ latency: Duration?) {
        if let latency { precondition(latency >= .zero, "latency must not be negative, got \(latency)") }
        note(.latency(latency), aimedAt: target)
        let affected = state.withLock { state in
            state.faults.latency[target] = latency
            return state.connections.filter { target.matches($0.client) }
        }
        for connection in affected {
            note(connection, .fault("latency \(latency.map(ProxyFaults.milliseconds) ?? "none")"))
        }
    }

    /// Write every frame on the target's connections, each way, in slices (nil: whole).
    public func setSlicing(_ target: FaultTarget, _ slicing: Slicing?) {
        note(.slicing(slicing), aimedAt: target)
        let affected = state.withLock { state in
            state.faults.slicing[target] = slicing
            return state.connections.filter { target.matches($0.client) }
        }
        for connection in affected { note(connection, .fault("slice \(slicing.map { "\($0)" } ?? "none")")) }
    }

    /// The latency and slicing that apply to a client now.
    func link(for client: String) -> (latency: Duration, slicing: Slicing?) {
        state.withLock { state in
            (
                ProxyFaults.effective(state.faults.latency, for: client) ?? .zero,
                ProxyFaults.effective(state.faults.slicing, for: client)
            )
        }
    }

    /// Records a connection's identity, once its request has arrived, and holds it if its
    /// client is frozen or hung: under the lock, so a freeze cannot slip between the two.
    /// Returns the standing faults it meets, in the routes' words, for the connection's history.
    func identify(_ connection: ProxyConnection, as client: String) -> [String] {
        state.withLock { state in
            connection.setClient(client)
            if state.faults.frozen.contains(.client(client)) { connection.frozen.shut() }
            if state.faults.hung.contains(.client(client)) { connection.hung.shut() }
            var standing: [String] = []
            if !state.faults.frozen.isDisjoint(with: [.all, .client(client)]) { standing.append("freeze") }
            if !state.faults.hung.isDisjoint(with: [.all, .client(client)]) { standing.append("hang") }
            if let latency = ProxyFaults.effective(state.faults.latency, for: client), latency > .zero {
                standing.append("latency \(ProxyFaults.milliseconds(latency))")
            }
            if let slicing = ProxyFaults.effective(state.faults.slicing, for: client) {
                standing.append("slice \(slicing)")
            }
            return standing
        }
    }

    /// The handshake faults that apply to a client now.
    func handshakeFaults(for client: String) -> (status: Int?, acceptThenClose: ClosePayload?) {
        state.withLock { state in
            (
                ProxyFaults.effective(state.faults.handshakeStatus, for: client),
                ProxyFaults.effective(state.faults.acceptThenClose, for: client)
            )
        }
    }
}
