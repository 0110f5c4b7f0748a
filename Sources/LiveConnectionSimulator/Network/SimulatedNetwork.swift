public import LiveConnection
public import LiveConnectionTraces
import LiveServerContract
public import SimulationKernel

public import typealias LiveConnection.Mutex

/// The simulated network and its scriptable WebSocket server, as a `Transport`.
///
/// ```swift
/// let clock = VirtualClock()
/// let network = SimulatedNetwork(clock: clock)
/// let manager = ConnectionManager(configuration: configuration, transport: network, clock: clock)
/// network.setLatency(.milliseconds(40))
/// network.broadcast(topic: "feed", text: "hello")   // to every subscribed connection, seq 1
/// network.freeze()                                   // socket open, no data, no pongs
/// network.resetAll()                                 // the client sees ECONNRESET
/// ```
///
/// Everything happens in virtual time: a handshake takes one round trip (2 × latency), a
/// server frame arrives one latency after it was sent, a pong (returned by `receive()`) one
/// round trip after its ping. Waiting is done by the caller's own task (a `receive()` sleeps until its frame's
/// delivery instant on the `VirtualClock`), so the network starts no tasks and reads no
/// wall clock. Client frames take effect at the server when the transport takes them
/// (latency is modelled on the server-to-client path and on round trips).
///
/// A frozen server (or a connection an idle timeout dropped) delivers nothing: frames
/// and pongs in flight stay in flight, which is what makes "a dead peer is detected
/// within P + T" an exact bound here.
///
/// The manager names each attempt's generation through the transport seam
/// (``connect(to:generation:)``), as it does to any transport; that is how the invariants
/// match a socket to the generation that owns it.
public final class SimulatedNetwork: Transport, Sendable {

    struct State {
        var server: LiveContract
        var links: [Link] = []
        /// Indices of the links the client holds open, in order of opening.
        var held: [Int] = []
        var refusing = false
        var handshakeStatus: Int?
        var hanging = false
        var frozenSince: VirtualClock.Instant?
        /// The device lost its network path: nothing is carried until it returns.
        var pathLostSince: VirtualClock.Instant?
        var latency: Duration = .zero
        var idleTimeout: Duration?
        var hostile: HostileServer?
        var duplicateNextFrame = false
        var delayNextSend = false
        var lastSendDelayedAt: VirtualClock.Instant?
        var statistics = NetworkStatistics()
        /// What the server saw, in order (nil: not recorded).
        var wire: [WireEvent]?
        var wireAttempts = 0
        /// Attempts whose `connect` has not returned or thrown yet, in order.
        var attemptsInProgress: [Int] = []
        /// The attempt whose handshake completes even if the client gives it up.
        var lateOpenAttempt: Int?

        /// Rings every link's bell, in link order (see ``Doorbell/ringDeferringWakeUps()``):
        /// the waiters to wake, in that order, once the lock is released.
        func ringAllBells() -> [Doorbell.Parked] {
            var parked: [Doorbell.Parked] = []
            for index in links.indices {
                if let waiters = links[index].doorbell.ringDeferringWakeUps() { parked.append(waiters) }
            }
            return parked
        }

        func isSilent(_ link: Link) -> Bool { frozenSince != nil || pathLostSince != nil || link.idleDroppedAt != nil }

        mutating func settleAll(now: VirtualClock.Instant) {
            guard idleTimeout != nil else { return }
            for index in held {
                let wasDropped = links[index].idleDroppedAt != nil
                links[index].settleIdle(timeout: idleTimeout, now: now)
                if !wasDropped, links[index].idleDroppedAt != nil {
                    statistics.idleDrops += 1
                    server.drop(links[index].id)
                }
            }
        }

        mutating func touch(_ index: Int, now: VirtualClock.Instant) {
            links[index].touch(timeout: idleTimeout, now: now)
        }

        /// The handshake of `index` completed: the client holds the connection from now on.
        mutating func openLink(_ index: Int, now: VirtualClock.Instant) {
            links[index].phase = .open
            links[index].openedAt = now
            links[index].lastTraffic = now
            held.append(index)
            statistics.connectionsOpened += 1
            record(.opened(links[index].attempt, socket: index + 1), at: now)
            // A hostile server lets the client in, then fails it at once.
            if let ending = hostile?.ending {
                end(index, with: ending, now: now)
                links[index].writableUntilEndingArrives = true
            }
        }

        /// The server ends a connection: the client learns it one latency later, after the
        /// frames sent before it.
        mutating func end(_ index: Int, with ending: Result<TransportEvent, TransportError>, now: VirtualClock.Instant)
        {
            links[index].endedByServerAt = now
            if case .failure(let error) = ending { links[index].endingError = error }
            server.drop(links[index].id)
            links[index].enqueue(ending, now: now, latency: latency)
            statistics.connectionsEnded += 1
            var code: CloseCode?
            if case .success(.closed(let closeCode, _)) = ending { code = closeCode }
            record(.endedByServer(socket: links[index].id, code: code), at: now)
        }
    }

    let clock: VirtualClock
    let state: Mutex<State>
    /// Whether ``wireEvents(from:)`` are recorded, and the bell rung on each.
    let recordsWire: Bool
    let wireBell = Doorbell()

    /// A network with one server that accepts everything, no latency, and a log of `logCapacity` entries.
    ///
    /// - Parameters:
    ///   - clock: the virtual clock every latency, deadline and log entry is timed by.
    ///   - logCapacity: how many published messages the server keeps for a resume to replay.
    ///   - recordsWire: keep a `WireEvent` log of what the server saw (the wire-level
    ///     oracles judge clients from it).
    public init(clock: VirtualClock, logCapacity: Int = 1_000, recordsWire: Bool = false) {
        self.clock = clock
        var state = State(server: LiveContract(logCapacity: logCapacity))
        if recordsWire { state.wire = [] }
        self.state = Mutex(state)
        self.recordsWire = recordsWire
    }

    // MARK: Transport

    /// A connection no manager generation owns (a test dialling the network itself).
    public func connect(to endpoint: Endpoint) async throws(TransportError) -> any TransportConnection {
        try await open(endpoint, for: nil)
    }

    /// The manager's attempt `generation`: its socket is known by that name to the invariants.
    public func connect(to endpoint: Endpoint, generation: Generation) async throws(TransportError)
        -> any TransportConnection
    {
        try await open(endpoint, for: generation)
    }

    private func open(_ endpoint: Endpoint, for generation: Generation?) async throws(TransportError)
        -> any TransportConnection
    {
        // A hostile server's slow handshake answers that much later than one round trip.
        let (roundTrip, attempt) = state.withLock { state in
            state.wireAttempts += 1
            state.attemptsInProgress.append(state.wireAttempts)
            state.record(.attempt(state.wireAttempts, url: endpoint.url.absoluteString), at: clock.now)
            return (state.latency * 2 + (state.hostile?.handshakeDelay ?? .zero), state.wireAttempts)
        }
        defer {
            state.withLock { state in
                state.attemptsInProgress.removeAll { $0 == attempt }
                // An arm for this attempt is spent, whether or not it was given up.
                if state.lateOpenAttempt == attempt { state.lateOpenAttempt = nil }
            }
        }
        ringWire()
        var cancelled = false
        if roundTrip > .zero {
            do { try await clock.sleep(for: roundTrip) } catch { cancelled = true }
        } else {
            cancelled = Task.isCancelled
        }
        let now = clock.now
        let created = state.withLock { (state) -> Result<Int, TransportError> in
            // Given up before the server answered: gone, unless armed to complete anyway.
            if cancelled, state.lateOpenAttempt != attempt { return .failure(.cancelled) }
            state.statistics.connectAttempts += 1
            if state.pathLostSince != nil { return .failure(.reset(errno: "ENETUNREACH")) }
            if state.refusing {
                state.statistics.refused += 1
                return .failure(.refused)
            }
            if let status = state.handshakeStatus {
                state.statistics.handshakesRejected += 1
                return .failure(.handshakeRejected(status: status))
            }
            state.links.append(
                Link(id: state.links.count + 1, attempt: attempt, generation: generation, endpoint: endpoint, now: now))
            return .success(state.links.count - 1)
        }
        let index: Int
        switch created {
        case .success(let created): index = created
        case .failure(let error): throw attemptFailed(attempt, error)
        }
        if cancelled { return openLate(index) }
        // A hung handshake (or a frozen server) completes only when lifted, or never.
        while true {
            let bell = state.withLock { $0.links[index].doorbell }
            let epoch = bell.epoch
            let outcome = state.withLock { (state) -> Result<Bool, TransportError> in
                if let error = state.links[index].endingError { return .failure(error) }
                guard !state.hanging, state.frozenSince == nil, state.pathLostSince == nil else {
                    return .success(false)
                }
                state.openLink(index, now: clock.now)
                return .success(true)
            }
            switch outcome {
            case .failure(let error): throw attemptFailed(attempt, error)
            case .success(true):
                ringWire()
                return SimulatedConnection(network: self, index: index)
            case .success(false): break
            }
            await bell.wait(after: epoch)
            if Task.isCancelled {
                if state.withLock({ $0.lateOpenAttempt == attempt }) { return openLate(index) }
                state.withLock { state in
                    state.links[index].phase = .abandoned
                    state.links[index].clientClosedAt = clock.now
                }
                throw attemptFailed(attempt, .cancelled)
            }
        }
    }

    /// The armed attempt's handshake completes as the client gives it up (the server's 101
    /// was already on its way): `connect` returns an open connection to a caller that no
    /// longer wants it, which the manager must recognise as stale and close.
    private func openLate(_ index: Int) -> any TransportConnection {
        state.withLock { state in
            state.lateOpenAttempt = nil
            state.statistics.lateCallbacks += 1
            state.openLink(index, now: clock.now)
        }
        ringWire()
        return SimulatedConnection(network: self, index: index)
    }

    // MARK: Server and network controls

    /// Refuse (true) or accept (false) new TCP connections.
    public func refuseConnections(_ refuse: Bool) { state.withLock { $0.refusing = refuse } }

    /// Fail every later handshake with this HTTP status (nil: succeed again).
    public func failHandshakes(status: Int?) { state.withLock { $0.handshakeStatus = status } }

    /// Leave handshakes hanging (true) or let them, and those already hung, complete (false).
    public func hangHandshakes(_ hang: Bool) {
        let parked = state.withLock { state in
            state.hanging = hang
            return hang ? [] : state.ringAllBells()
        }
        parked.forEach { $0.wake() }
    }

    /// Treat every later connection the `behaviour` way (nil: healthy again). Connections
    /// already open are left as they are.
    public func setHostile(_ behaviour: HostileServer?) { state.withLock { $0.hostile = behaviour } }

    /// Logs a sequence-numbered message and sends it to every connection subscribed to `topic`.
    @discardableResult
    public func broadcast(topic: String, text: String) -> UInt64 {
        let now = clock.now
        return state.withLock { state in
            state.settleAll(now: now)
            let entry = state.server.append(topic: topic, text: text)
            state.statistics.broadcasts += 1
            for id in state.server.recipients(of: entry) {
                let index = id - 1
                guard state.links[index].isAliveForServer else { continue }
                state.links[index].enqueue(.success(.message(entry.message)), now: now, latency: state.latency)
                if state.duplicateNextFrame {
                    state.duplicateNextFrame = false
                    state.statistics.framesDuplicated += 1
                    state.links[index].enqueue(.success(.message(entry.message)), now: now, latency: state.latency)
                }
            }
            return entry.sequence
        }
    }

    /// Closes every open connection with a close frame.
    public func closeAll(code: CloseCode, reason: String) {
        endAll(with: .success(.closed(code: code, reason: reason)))
    }

    /// Resets every open connection: no close frame, the client sees ECONNRESET.
    public func resetAll() {
        endAll(with: .failure(.reset(errno: "ECONNRESET")))
    }

    /// Socket open, no data, no pongs, no handshakes, until ``thaw()``.
    public func freeze() {
        let now = clock.now
        state.withLock { state in
            if state.frozenSince == nil { state.frozenSince = now }
        }
    }

    /// Everything held by a freeze flows again.
    public func thaw() {
        let parked = state.withLock { state in
            state.frozenSince = nil
            return state.ringAllBells()
        }
        parked.forEach { $0.wake() }
    }

    /// The device's network path goes away (false): new connections fail with ENETUNREACH,
    /// held sockets and handshakes fall silent as in a freeze. Back (true): what they held
    /// flows again. Telling the manager is the caller's part (its app's path monitor). A
    /// change is a wire event (`WireEvent.Kind.path(available:)`): the network's truth.
    public func setPathAvailable(_ available: Bool) {
        let now = clock.now
        let changed = state.withLock { state in
            let changed = (state.pathLostSince == nil) != available
            if changed { state.record(.path(available: available), at: now) }
            if available {
                state.pathLostSince = nil
            } else if state.pathLostSince == nil {
                state.pathLostSince = now
            }
            return changed
        }
        if changed { ringWire() }
        // After the wire's bell, as before: the links' waiters wake in the same order.
        if available { state.withLock { $0.ringAllBells() }.forEach { $0.wake() } }
    }

    /// One-way latency of every later frame (round trips take twice this).
    public func setLatency(_ latency: Duration) {
        precondition(latency >= .zero, "latency must not be negative, got \(latency)")
        state.withLock { $0.latency = latency }
    }

    /// Restart: every connection (and hung handshake) dropped, subscriptions forgotten, the log kept.
    public func restart() {
        let now = clock.now
        state.withLock { state in
            state.statistics.restarts += 1
            for index in state.links.indices where state.links[index].phase == .handshaking {
                state.links[index].endingError = .reset(errno: "ECONNRESET")
                state.links[index].endedByServerAt = now
            }
            state.frozenSince = nil
            state.hanging = false
        }
        resetAll()
        // Every bell last, after the resets rang the held ones (no link is made meanwhile).
        let parked = state.withLock { state in
            state.server.restart()
            return state.ringAllBells()
        }
        parked.forEach { $0.wake() }
    }

    /// Drop a connection silently after this long without a frame either way (nil: never).
    public func setIdleTimeout(_ timeout: Duration?) {
        let now = clock.now
        state.withLock { state in
            state.settleAll(now: now)
            state.idleTimeout = timeout
        }
    }

    /// The next broadcast frame reaches its first recipient twice.
    public func duplicateNextFrame() { state.withLock { $0.duplicateNextFrame = true } }

    /// The next client send completes only after the receive that follows it.
    public func delayNextSendCompletion() { state.withLock { $0.delayNextSend = true } }

    /// Records that attempt `attempt` failed with `error`, and returns the error to throw.
    private func attemptFailed(_ attempt: Int, _ error: TransportError) -> TransportError {
        state.withLock { $0.record(.attemptFailed(attempt, reason: error.reason), at: clock.now) }
        ringWire()
        return error
    }

    private func endAll(with ending: Result<TransportEvent, TransportError>) {
        defer { ringWire() }
        let now = clock.now
        state.withLock { state in
            state.settleAll(now: now)
            for index in state.held where state.links[index].isAliveForServer {
                state.end(index, with: ending, now: now)
            }
        }
    }
}
