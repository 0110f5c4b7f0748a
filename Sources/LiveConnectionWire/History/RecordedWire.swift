import LiveConnection
public import LiveConnectionTraces
public import SimulationKernel
public import WireHistory

import typealias LiveConnection.Mutex

/// A wire history recorded from a real server, as a ``WireJudge`` reads a wire: fed one record
/// at a time, it turns each into the simulated wire's ``WireEvent``s and keeps the truths the
/// judge asks for, derived from the records alone.
///
/// ```swift
/// let wire = RecordedWire()
/// let judge = WireJudge(claims: claims, clients: nil, topics: [], wire: wire, clock: clock)
/// _ = clock.advance(to: .start + record.at)
/// wire.apply(record)
/// judge.check()
/// ```
///
/// How the server's view becomes the judge's (`docs/wire-history.md`, "Reading a history"):
/// - a connection's number names its attempt and its socket;
/// - a client's close frame, and its TCP end after it, are both news of the ending it made:
///   a retry may be timed from either (the close handshake may take the client's close timeout);
/// - `told` (the client learnt the socket ended) is what the wire shows of it: the client's
///   close frame or FIN after the server's close frame (then with the server's code: the
///   client read it before answering), the server's reset (at once: a client always reads),
///   or the server shutting the socket after its close timeout;
/// - a socket is dead (nothing reaches the client) from the server's close or reset, the
///   idle timeout's drop, or a freeze (from the later of its start and the socket's open),
///   and stays dead from that instant while any of them holds without a break (a freeze, then
///   an idle drop during it, is one silence);
/// - a refusal closes the listening socket, so the kernel answers the client's attempts and
///   the server sees none of them: the judge reads it as a window it cannot see into (as the
///   network path going away and coming back), so no delay across it and no silence in it
///   is judged;
/// - a fault aimed at one client (a proxy's, `"client"` in its record) holds that client's
///   connections only: a freeze of `a` silences `a`'s sockets and no other's. One that stops
///   handshakes (a status, a hang, accept-then-close) is read as the server not accepting
///   anyone: no client is required to be connected meanwhile (the judge keeps one healthy
///   stretch for all);
/// - every fault disrupts the world (the attempt rate may rise, the healthy stretch starts again).
public final class RecordedWire: JudgedWire {
    private struct Socket {
        /// The client's identity, as its attempt gave it.
        var client: String?
        var openedAt: VirtualClock.Instant?
        var clientClosed = false
        var serverEndedAt: VirtualClock.Instant?
        var serverCode: CloseCode?
        var told = false
        var idleDroppedAt: VirtualClock.Instant?
        /// Since when nothing has reached the client on it, without a break (a freeze, then an
        /// idle drop during it, is one silence from the freeze on); nil while it is alive.
        var silentSince: VirtualClock.Instant?
        /// The client's close frame arrived (its TCP end may follow, when its close handshake is over).
        var closeFrameSent = false
        var endSeen = false
    }

    private struct State {
        /// Events not yet read by the judge; `base` is the position of the first.
        var events: [WireEvent] = []
        var base = 0
        var clients: [String] = []
        var clientIndex: [String: Int] = [:]
        var attemptClient: [Int: Int] = [:]
        var sockets: [Int: Socket] = [:]
        var refusing = false
        var handshakeStatus: Int?
        var hanging = false
        var frozenSince: VirtualClock.Instant?
        /// Clients frozen on their own (a proxy's freeze aimed at one), since when.
        var frozenClients: [String: VirtualClock.Instant] = [:]
        /// Clients whose handshakes a fault aimed at them stops, and by which faults.
        var refusedClients: [String: Set<String>] = [:]
        var acceptThenClose = false
        var idleTimeout: Duration?
    }

    private let state: Mutex<State>

    /// - Parameter idleTimeout: the idle timeout the server started with (its header's).
    public init(idleTimeout: Duration? = nil) {
        var initial = State()
        initial.idleTimeout = idleTimeout
        state = Mutex(initial)
    }

    /// The clients in the order they first attempted: index → the identity the history gave.
    public var clients: [String] { state.withLock { $0.clients } }

    /// Applies one record at its instant; true when it is a fault (the world was disrupted).
    @discardableResult
    public func apply(_ record: WireHistoryRecord) -> Bool {
        let now = VirtualClock.Instant.start + record.at
        return state.withLock { state in
            func emit(_ kind: WireEvent.Kind) { state.events.append(WireEvent(at: now, kind: kind)) }
            /// The client learnt that socket `id` ended, if the server ended it and it had not yet.
            func tellIfEnded(_ id: Int) {
                guard let socket = state.sockets[id], socket.serverEndedAt != nil, !socket.told else { return }
                state.sockets[id]!.told = true
                emit(.told(socket: id, code: socket.serverCode))
            }
            switch record.event {
            case .attempt(let id, let client, let path):
                let index: Int
                if let known = state.clientIndex[client] {
                    index = known
                } else {
                    index = state.clients.count
                    state.clients.append(client)
                    state.clientIndex[client] = index
                }
                state.attemptClient[id] = index
                emit(.attempt(id, url: path))
            case .attemptFailed(let id, let reason):
                emit(.attemptFailed(id, reason: reason))
                // The judge read the attempt (it checks after every record): its owner is not asked again.
                state.attemptClient[id] = nil
            case .opened(let id):
                let client = state.attemptClient[id].map { state.clients[$0] }
                let frozen = state.frozenSince != nil || client.map { state.frozenClients[$0] != nil } ?? false
                state.sockets[id] = Socket(client: client, openedAt: now, silentSince: frozen ? now : nil)
                emit(.opened(id, socket: id))
            case .clientMessage(let id, let binary, let size, let text):
                emit(.sent(socket: id, text: binary ? "<binary, \(size) bytes>" : text ?? ""))
            case .clientPing(let id):
                emit(.pinged(socket: id))
            case .pong(let id):
                emit(.ponged(socket: id))
            case .serverMessage:
                break
            case .clientClose(let id, _, _):
                guard state.sockets[id] != nil, !state.sockets[id]!.clientClosed else { break }
                tellIfEnded(id)
                state.sockets[id]!.clientClosed = true
                state.sockets[id]!.closeFrameSent = true
                emit(.closedByClient(socket: id))
            case .clientEnd(let id):
                guard let socket = state.sockets[id] else { break }
                if !socket.clientClosed {
                    tellIfEnded(id)
                    state.sockets[id]!.clientClosed = true
                    emit(.closedByClient(socket: id))
                } else if socket.closeFrameSent, !socket.endSeen {
                    // Its close handshake is over: a client may time its retry from here (later news).
                    emit(.closedByClient(socket: id))
                }
                state.sockets[id]!.endSeen = true
            case .serverClose(let id, let code, _):
                guard state.sockets[id] != nil, state.sockets[id]!.serverEndedAt == nil else { break }
                state.sockets[id]!.serverEndedAt = now
                state.sockets[id]!.silentSince = state.sockets[id]!.silentSince ?? now
                state.sockets[id]!.serverCode = CloseCode(UInt16(code))
                emit(.endedByServer(socket: id, code: CloseCode(UInt16(code))))
            case .serverReset(let id, _):
                guard state.sockets[id] != nil, state.sockets[id]!.serverEndedAt == nil else { break }
                state.sockets[id]!.serverEndedAt = now
                state.sockets[id]!.silentSince = state.sockets[id]!.silentSince ?? now
                emit(.endedByServer(socket: id, code: nil))
                tellIfEnded(id)
            case .idleDrop(let id):
                guard state.sockets[id] != nil else { break }
                state.sockets[id]!.idleDroppedAt = now
                state.sockets[id]!.silentSince = state.sockets[id]!.silentSince ?? now
            case .serverDone(let id):
                if state.sockets[id]?.clientClosed == false { tellIfEnded(id) }
                // Nothing more can be seen of it: its entry goes (a long history stays small).
                state.sockets[id] = nil
                state.attemptClient[id] = nil
            case .fault(let fault, let client?):
                Self.apply(fault, toClient: client, in: &state, at: now)
                return true
            case .fault(let fault, nil):
                if let available = Self.apply(fault, to: &state, at: now) { emit(.path(available: available)) }
                return true
            case .end:
                break
            }
            return false
        }
    }

    /// Applies a fault to the server's truths; returns a window's edge the judge cannot see
    /// into (false: it starts, true: it ends), if the fault is one.
    private static func apply(_ fault: WireFault, to state: inout State, at now: VirtualClock.Instant) -> Bool? {
        switch fault {
        case .freeze:
            state.frozenSince = state.frozenSince ?? now
            for id in state.sockets.keys where state.sockets[id]!.openedAt != nil {
                state.sockets[id]!.silentSince = state.sockets[id]!.silentSince ?? now
            }
        case .thaw:
            // A thaw for all lifts every freeze, of all and of each client (as the proxy's does).
            state.frozenSince = nil
            state.frozenClients = [:]
            // Alive again, unless it stays silent for another reason (then its silence goes on).
            for id in state.sockets.keys
            where state.sockets[id]!.idleDroppedAt == nil && state.sockets[id]!.serverEndedAt == nil {
                state.sockets[id]!.silentSince = nil
            }
        case .refuse(let on):
            guard on != state.refusing else { return nil }
            state.refusing = on
            // A window the server cannot see into: read as the path going away and back.
            return !on
        case .handshakeStatus(let status): state.handshakeStatus = status
        case .hang(let on): state.hanging = on
        case .acceptThenClose(let code, _): state.acceptThenClose = code != nil
        case .idleTimeout(let timeout): state.idleTimeout = timeout
        case .closeAll, .resetAll, .restart, .latency, .slice: break  // their effects are recorded per connection
        }
        return nil
    }

    /// Applies a fault aimed at one client: only that client's sockets and handshakes.
    private static func apply(
        _ fault: WireFault, toClient client: String, in state: inout State, at now: VirtualClock.Instant
    ) {
        func refused(_ kind: String, _ on: Bool) {
            if on {
                state.refusedClients[client, default: []].insert(kind)
            } else {
                state.refusedClients[client]?.remove(kind)
                if state.refusedClients[client]?.isEmpty == true { state.refusedClients[client] = nil }
            }
        }
        switch fault {
        case .freeze:
            state.frozenClients[client] = state.frozenClients[client] ?? now
            for id in state.sockets.keys where state.sockets[id]!.client == client && state.sockets[id]!.openedAt != nil
            {
                state.sockets[id]!.silentSince = state.sockets[id]!.silentSince ?? now
            }
        case .thaw:
            state.frozenClients[client] = nil
            // Alive again unless a freeze of all holds it, or it is silent for another reason.
            guard state.frozenSince == nil else { break }
            for id in state.sockets.keys
            where state.sockets[id]!.client == client && state.sockets[id]!.idleDroppedAt == nil
                && state.sockets[id]!.serverEndedAt == nil
            {
                state.sockets[id]!.silentSince = nil
            }
        case .handshakeStatus(let status): refused("handshake-status", status != nil)
        case .hang(let on): refused("hang", on)
        case .acceptThenClose(let code, _): refused("accept-then-close", code != nil)
        case .closeAll, .resetAll, .latency, .slice: break  // their effects are recorded per connection
        case .refuse, .restart, .idleTimeout: break  // never aimed at one client (the reader refuses such a record)
        }
    }

    // MARK: JudgedWire

    public func wireEvents(from start: Int) -> [WireEvent] {
        state.withLock { state in
            // The judge reads each event once, in order: what it has read is let go.
            let drop = min(max(0, start - state.base), state.events.count)
            state.events.removeFirst(drop)
            state.base += drop
            return Array(state.events)
        }
    }

    public func client(ofAttempt attempt: Int, url: String) -> Int {
        state.withLock { $0.attemptClient[attempt] ?? 0 }
    }

    /// A real server's writer never stalls the way the simulator's delayed sends do.
    public func writer(of socket: Int) -> (stalled: Bool, lastStallEndedAt: VirtualClock.Instant?) { (false, nil) }

    public func silentSockets() -> [(socket: Int, deadSince: VirtualClock.Instant)] {
        state.withLock { state in
            state.sockets.keys.sorted().compactMap { id in
                let socket = state.sockets[id]!
                guard socket.openedAt != nil, !socket.clientClosed, let since = socket.silentSince else { return nil }
                return (id, since)
            }
        }
    }

    public var acceptsConnections: Bool {
        state.withLock {
            !$0.refusing && $0.handshakeStatus == nil && !$0.hanging && $0.frozenSince == nil && !$0.acceptThenClose
                && $0.frozenClients.isEmpty && $0.refusedClients.isEmpty
        }
    }

    public var idleTimeout: Duration? { state.withLock { $0.idleTimeout } }
}
