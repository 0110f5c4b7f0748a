public import LiveConnection
public import LiveConnectionRules
import LiveServerContract
public import SimulationKernel

public import typealias LiveConnection.Mutex

/// A real transport with the judge watching the client's end of the wire: the ``WorldTruth``
/// of a run on real sockets, for an ``InvariantMonitor`` on the real clock.
///
/// ```swift
/// let start = ContinuousClock.now
/// let now: @Sendable () -> VirtualClock.Instant = { .start + start.duration(to: .now) }
/// let transport = ObservedTransport(WebSocketTransport(), now: now)
/// let monitor = InvariantMonitor(configuration: configuration, world: transport, now: now, tolerance: .seconds(1))
/// let manager = ConnectionManager(configuration: configuration, transport: transport,
///                                 observer: { monitor.observe($0, $1) })
/// ```
///
/// It sees what an app's transport sees and nothing more: which attempt (generation) dialled
/// where, when each handshake completed, the subscription frames and commands the client
/// wrote, when it last heard anything (a frame or a pong), and when it let go of a socket.
/// It cannot see the server's log, whether the server would accept a connection, or when a
/// socket really died: a client only ever hears silence. So its ``LinkTruth/deadSince`` is
/// the last moment the client heard anything on the socket (on a healthy connection the
/// heartbeat keeps that within P of now), ``replayableFrom`` and
/// ``welcomesConnections(heartbeatInterval:)`` are unknown, and the rules that need them
/// are judged in part or not at all (``notJudged``; docs/invariants.md).
public final class ObservedTransport: Transport, WorldTruth {
    /// One connection attempt as the client's end saw it.
    struct Record {
        var generation: Generation?
        var endpoint: Endpoint
        var openedAt: VirtualClock.Instant?
        var released = false
        var lastHeard: VirtualClock.Instant?
        var sentSubscribes: [String] = []
        /// The close frame the client sent, and the server's that the client received.
        var clientClose: CloseFrame?
        var serverCloseDelivered: CloseFrame?
    }

    struct State {
        var records: [Record] = []
        var commands: [(connection: Int, text: String)] = []
    }

    private let inner: any Transport
    private let now: @Sendable () -> VirtualClock.Instant
    private let state = Mutex(State())

    /// Watches `inner`; `now` is the run's timeline (the monitor's own).
    public init(_ inner: any Transport, now: @escaping @Sendable () -> VirtualClock.Instant) {
        self.inner = inner
        self.now = now
    }

    /// What a real run cannot judge, and why (printed by `livesim connect --check`).
    public static let notJudged: [(invariant: Rule, why: String)] = [
        (
            .eventuallyOpen,
            "a client cannot know whether the server would accept it (refusing is not the manager's fault)"
        )
    ]

    /// What a real run judges only in part, and which part is left out.
    public static let judgedInPart: [(invariant: Rule, why: String)] = [
        (
            .exactlyOnceInOrder,
            "a hole reported as a gap is accepted: only the server's log knows whether it still held the messages"
        ),
        (
            .deadPeerDetected,
            "\"dead since\" is the last moment the client heard anything: silence is all a client can observe"
        ),
    ]

    // MARK: Transport

    public func connect(to endpoint: Endpoint) async throws(TransportError) -> any TransportConnection {
        try await open(endpoint, for: nil)
    }

    public func connect(to endpoint: Endpoint, generation: Generation) async throws(TransportError)
        -> any TransportConnection
    {
        try await open(endpoint, for: generation)
    }

    private func open(_ endpoint: Endpoint, for generation: Generation?) async throws(TransportError)
        -> any TransportConnection
    {
        let index = state.withLock { state in
            state.records.append(Record(generation: generation, endpoint: endpoint))
            return state.records.count - 1
        }
        let connection: any TransportConnection
        if let generation {
            connection = try await inner.connect(to: endpoint, generation: generation)
        } else {
            connection = try await inner.connect(to: endpoint)
        }
        let at = now()
        state.withLock { state in
            state.records[index].openedAt = at
            state.records[index].lastHeard = at
        }
        return Observed(inner: connection, transport: self, index: index)
    }

    // MARK: What the connections report

    fileprivate func heard(on index: Int) {
        let at = now()
        state.withLock { $0.records[index].lastHeard = at }
    }

    fileprivate func released(_ index: Int) {
        state.withLock { $0.records[index].released = true }
    }

    /// A frame the transport took: a subscription control or an application command.
    fileprivate func sent(_ message: Message, on index: Int) {
        state.withLock { state in
            guard case .text(let text) = message else {
                state.commands.append((index + 1, "binary \(message.data.count) bytes"))
                return
            }
            switch ContractFrame(text) {
            case .subscribe(let topic): state.records[index].sentSubscribes.append(topic)
            case .unsubscribe, .resume: break
            case nil: state.commands.append((index + 1, text))
            }
        }
    }

    // MARK: WorldTruth

    public func heldLinks() -> [LinkTruth] {
        state.withLock { state in
            state.records.indices.filter { state.records[$0].isHeld }.map { truth(state.records[$0], index: $0) }
        }
    }

    public func link(for generation: Generation) -> LinkTruth? {
        state.withLock { state in
            guard let index = state.records.lastIndex(where: { $0.generation == generation }) else { return nil }
            return truth(state.records[index], index: index)
        }
    }

    public func links(from start: Int) -> [LinkTruth] {
        state.withLock { state in
            guard start < state.records.count else { return [] }
            return (start..<state.records.count).map { truth(state.records[$0], index: $0) }
        }
    }

    public var commandCount: Int { state.withLock { $0.commands.count } }

    public func commands(from start: Int) -> [(connection: Int, text: String)] {
        state.withLock { Array($0.commands[min(start, $0.commands.count)...]) }
    }

    /// Unknown: the server's log is on the other side of the wire.
    public var replayableFrom: UInt64? { nil }

    /// Unknown: a client cannot tell a server that would accept it from one that would not.
    public func welcomesConnections(heartbeatInterval p: Duration) -> Bool? { nil }

    /// Never: a real run holds no send back on purpose.
    public var lastSendDelayedAt: VirtualClock.Instant? { nil }

    /// A step's questions under one lock: the answers of one instant, though the client's
    /// sockets go on changing on other threads.
    public func answer(_ questions: WorldQuestions, into snapshot: inout WorldSnapshot) {
        snapshot.clear(for: questions)
        state.withLock { state in
            for index in state.records.indices.dropFirst(questions.linksFrom) {
                snapshot.newLinks.append(truth(state.records[index], index: index))
            }
            guard questions.timeChecks else { return }
            for index in state.records.indices where state.records[index].isHeld {
                snapshot.held.append(WorldSnapshot.HeldLink(truth(state.records[index], index: index)))
            }
            if let g = questions.watching {
                let index = state.records.lastIndex { $0.generation == g }
                let record = index.map { state.records[$0] }
                snapshot.watched = WorldSnapshot.Watched(
                    generation: g, hasLink: record != nil, deadSince: record?.deadSince)
            }
            snapshot.commandCount = state.commands.count
            if snapshot.commandCount > questions.commandsFrom {
                snapshot.newCommands = Array(state.commands[questions.commandsFrom...])
            }
        }
    }

    /// Changes what is known of connection `index`.
    fileprivate func update(_ index: Int, _ change: (inout Record) -> Void) {
        state.withLock { change(&$0.records[index]) }
    }

    private func truth(_ record: Record, index: Int) -> LinkTruth {
        LinkTruth(
            id: index + 1, generation: record.generation, endpoint: record.endpoint,
            handshakeCompleted: record.openedAt != nil, openedAt: record.openedAt, isHeld: record.isHeld,
            deadSince: record.deadSince, sentSubscribes: record.sentSubscribes,
            writerStalled: false, lastStallEndedAt: nil, clientClose: record.clientClose,
            serverCloseDelivered: record.serverCloseDelivered)
    }
}

extension ObservedTransport.Record {
    /// Open, and the client has not let go of it (closing it, or seeing it end).
    var isHeld: Bool { openedAt != nil && !released }

    /// ``LinkTruth/deadSince`` as the client's end can know it: a held connection is dead, at
    /// the latest, since it was last heard from (the type's comment says why); one let go is not.
    var deadSince: VirtualClock.Instant? { isHeld ? lastHeard : nil }
}

/// One connection, reporting to its ``ObservedTransport`` what the client's end sees.
private final class Observed: TransportConnection {
    let inner: any TransportConnection
    let transport: ObservedTransport
    let index: Int

    init(inner: any TransportConnection, transport: ObservedTransport, index: Int) {
        self.inner = inner
        self.transport = transport
        self.index = index
    }

    var handshake: Handshake { inner.handshake }

    func send(_ message: Message) async throws(TransportError) {
        try await inner.send(message)
        transport.sent(message, on: index)
    }

    func receive() async throws(TransportError) -> TransportEvent {
        let event = try await inner.receive()
        transport.heard(on: index)
        if case .closed(let code, let reason) = event {
            transport.update(index) { $0.serverCloseDelivered = CloseFrame(code: code, reason: reason) }
        }
        return event
    }

    /// The pong, when it comes, is heard by ``receive()`` like any frame.
    func ping(_ number: UInt64) async throws(TransportError) {
        try await inner.ping(number)
    }

    func close(code: CloseCode, reason: String) async {
        // Let go when the manager asks: the close handshake that follows is the transport's.
        transport.released(index)
        transport.update(index) { record in
            if record.clientClose == nil { record.clientClose = CloseFrame(code: code, reason: reason) }
        }
        await inner.close(code: code, reason: reason)
    }
}
