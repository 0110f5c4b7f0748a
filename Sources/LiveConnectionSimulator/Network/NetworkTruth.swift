public import LiveConnection
public import SimulationKernel

/// What is really true about one connection, for the invariants to compare against
/// what the manager believes.
///
/// ```swift
/// for link in network.heldLinks() { print(link.id, link.generation as Any, link.deadSince as Any) }
/// ```
public struct LinkTruth: Hashable, Sendable {
    /// The connection's number (from 1, in order of attempts).
    public var id: Int
    /// The manager generation that opened it.
    public var generation: Generation?
    /// Where the client dialled it (as the transport was asked).
    public var endpoint: Endpoint
    /// The handshake completed (the client got an open connection).
    public var handshakeCompleted: Bool
    /// When the handshake completed.
    public var openedAt: VirtualClock.Instant?
    /// Open and not closed by the client.
    public var isHeld: Bool
    /// Since when nothing can reach the client on it any more (the server ended it, an
    /// idle timeout dropped it, or a freeze that is still on), or nil while it is healthy.
    public var deadSince: VirtualClock.Instant?
    /// Topics the client's subscribe frames named, in order.
    public var sentSubscribes: [String]
    /// A delayed send is holding its writer (and whatever is queued behind it).
    public var writerStalled: Bool
    /// When the last delayed send on it completed.
    public var lastStallEndedAt: VirtualClock.Instant?
    /// The close frame the client sent on it, as the server received it (nil: the client has
    /// not closed it, or gave its handshake up; a world that cannot see it says nil).
    public var clientClose: CloseFrame? = nil
    /// The server's close frame, code and reason, once the client's transport delivered it
    /// (nil: none delivered: the connection is alive, or ended without one).
    public var serverCloseDelivered: CloseFrame? = nil
}

extension SimulatedNetwork.State {
    func truth(of link: Link) -> LinkTruth {
        LinkTruth(
            id: link.id, generation: link.generation, endpoint: link.endpoint, handshakeCompleted: link.openedAt != nil,
            openedAt: link.openedAt, isHeld: link.isHeld, deadSince: deadSince(of: link),
            sentSubscribes: link.sentSubscribes,
            writerStalled: link.stalledSends > 0, lastStallEndedAt: link.lastStallEndedAt,
            clientClose: link.clientClose,
            serverCloseDelivered: link.serverCloseDelivered
        )
    }

    /// ``LinkTruth/deadSince`` of `link`: the first of the server's end, an idle drop, and a
    /// freeze or a lost path that is still on (from its opening, if it came later).
    func deadSince(of link: Link) -> VirtualClock.Instant? {
        var dead: VirtualClock.Instant?
        func consider(_ instant: VirtualClock.Instant?) {
            if let instant { dead = dead.map { min($0, instant) } ?? instant }
        }
        consider(link.endedByServerAt)
        consider(link.idleDroppedAt)
        if let frozen = frozenSince, let opened = link.openedAt { consider(max(frozen, opened)) }
        if let lost = pathLostSince, let opened = link.openedAt { consider(max(lost, opened)) }
        return dead
    }

    /// Whether a new connection would be accepted and complete its handshake right now.
    var acceptsConnections: Bool {
        !refusing && handshakeStatus == nil && !hanging && frozenSince == nil && hostile == nil && pathLostSince == nil
    }

    /// ``WorldTruth/welcomesConnections(heartbeatInterval:)``: accepted, and no idle timeout at or below `p`.
    func welcomesConnections(heartbeatInterval p: Duration) -> Bool {
        (idleTimeout.map { $0 > p } ?? true) && acceptsConnections
    }
}

extension SimulatedNetwork {
    /// The connections the client holds open, in order of opening, idle timeouts applied up to now.
    public func heldLinks() -> [LinkTruth] {
        let now = clock.now
        return state.withLock { state in
            state.settleAll(now: now)
            return state.held.map { state.truth(of: state.links[$0]) }
        }
    }

    /// The latest connection opened for generation `g`, if any.
    public func link(for generation: Generation) -> LinkTruth? {
        let now = clock.now
        return state.withLock { state in
            state.settleAll(now: now)
            // The live generation's link is one of the last few: search from the end.
            guard let link = state.links.last(where: { $0.generation == generation }) else { return nil }
            return state.truth(of: link)
        }
    }

    /// The connections from the `start`-th on (0-based), in order of attempts: the monitor
    /// reads each new one once.
    public func links(from start: Int) -> [LinkTruth] {
        let now = clock.now
        return state.withLock { state in
            guard start < state.links.count else { return [] }
            state.settleAll(now: now)
            return state.links[start...].map { state.truth(of: $0) }
        }
    }

    /// The truth about socket `id` (numbered from 1, as in `WireEvent`), if there is one.
    public func link(socket id: Int) -> LinkTruth? {
        let now = clock.now
        return state.withLock { state in
            guard state.links.indices.contains(id - 1) else { return nil }
            state.settleAll(now: now)
            return state.truth(of: state.links[id - 1])
        }
    }

    /// Every connection so far, in order of attempts (for tests and reports; linear).
    public func allLinks() -> [LinkTruth] {
        let now = clock.now
        return state.withLock { state in
            state.settleAll(now: now)
            return state.links.map { state.truth(of: $0) }
        }
    }

    /// How many command frames the server has received.
    public var commandCount: Int { state.withLock { $0.server.commands.total } }

    /// The command frames received from position `start` on that the server still records
    /// (its last `LiveContract.recordCapacity`), with their connection.
    public func commands(from start: Int) -> [(connection: Int, text: String)] {
        state.withLock { $0.server.commands.since(start) }
    }

    /// "connection:topic" for the subscribe frames the server took, in order (its last
    /// `LiveContract.recordCapacity`).
    public var subscriptionLog: [String] { state.withLock { Array($0.server.subscriptionLog) } }

    /// The oldest sequence number the server can still replay.
    public var oldestRetainedSequence: UInt64 { state.withLock { $0.server.oldestRetained } }

    /// The last sequence number the server assigned.
    public var lastSequence: UInt64 { state.withLock { $0.server.lastSequence } }

    /// The network's counters so far.
    public var statistics: NetworkStatistics { state.withLock { $0.statistics } }

    /// When a send was last held back by ``delayNextSendCompletion()`` (its writer stalls up to a second).
    public var lastSendDelayedAt: VirtualClock.Instant? { state.withLock { $0.lastSendDelayedAt } }

    /// The idle timeout in force (nil: none).
    public var idleTimeout: Duration? { state.withLock { $0.idleTimeout } }

    /// Whether a new connection would be accepted and complete its handshake right now.
    public var acceptsConnections: Bool { state.withLock { $0.acceptsConnections } }
}
