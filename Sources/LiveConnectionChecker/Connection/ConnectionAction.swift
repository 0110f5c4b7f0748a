public import LiveConnection
import LiveConnectionRules

/// One thing that can happen in the connection model's world.
///
/// ```swift
/// for (number, action) in violation.counterexample.actions.enumerated() {
///     print("\(number + 1). \(action)")   // "3. late failed g2 \"error ECONNRESET\""
/// }
/// ```
///
/// Generations are the model's renumbered ones: the last connection minted is `g3`, the
/// one before it `g2` (see ``ConnectionModel``). ``ConnectionModel/replay(_:)`` turns a
/// counterexample into inputs with real generation numbers.
public enum ConnectionAction: Hashable, Sendable, CustomStringConvertible {
    /// An input for the machine: an app intent, a callback of the live connection, an
    /// armed timer firing, or the credentials provider answering.
    case input(Input)
    /// A late callback or timer of a dead generation (it must change nothing).
    case late(Input)
    /// The network changes.
    case network(NetworkChange)
    /// The server appends a message to its log (and will send it to subscribers).
    case broadcast(sequence: UInt64)

    /// A change of the network under the connection.
    public enum NetworkChange: String, Hashable, Sendable {
        /// Handshakes fail, nothing arrives; resets still do.
        case down
        /// Back to healthy.
        case up
        /// Sockets stay open but nothing arrives: no pongs, no data, no handshake.
        case freeze
    }

    /// The machine input, if this action is one.
    public var input: Input? {
        switch self {
        case .input(let input), .late(let input): input
        case .network, .broadcast: nil
        }
    }

    public var description: String {
        switch self {
        case .input(let input): input.description
        case .late(let input): "late \(input)"
        case .network(let change): "network \(change.rawValue)"
        case .broadcast(let sequence): "server broadcasts seq=\(sequence)"
        }
    }
}

/// The fixed table of machine inputs the environment can deliver, so a step's cache key
/// is a small index and enabling an input is a table lookup.
struct InputTable: Sendable {
    enum Source: Sendable {
        case intent, live, timer, credentials
        /// A late input of the dead current generation (3) or of the older one (2).
        case late(current: Bool)
    }

    struct Entry: Sendable {
        var input: Input
        var source: Source
    }

    private(set) var entries: [Entry] = []
    /// Per entry: whether it is a late input, and what delivering it does to the environment.
    private(set) var late: [Bool] = []
    private(set) var deliveries: [Delivery] = []
    /// Per entry: the action that delivers it (prebuilt: a filter asks for it often).
    private(set) var actions: [ConnectionAction] = []
    // Indices the environment enables by condition.
    var connect: [Int] = [], disconnect = 0, background = 0, foreground = 0, pathLost = 0, pathBack = 0
    var subscribe: [Int] = [], unsubscribe: [Int] = [], send: [Int] = [], ping: Int?
    var opened = 0, handshakeFailures: [Int] = [], receivedPlain = 0, receivedSequence: [Int] = [], pong = 0
    var peerCloses: [Int] = [], reset = 0, sendCompleted: [Int] = [], flushed = 0, pingAnswered: Int?
    var retry = 0, connectTimeout = 0, heartbeat = 0, pongDeadline = 0, pingDeadline: Int?
    var refreshSucceeded = 0, refreshFailed = 0
    var lateCurrent: Range<Int> = 0..<0, lateOlder: Range<Int> = 0..<0

    /// Handshake statuses offered: retryable (503), then the specification's refresh and
    /// terminal ones (seed 000: 401, 403).
    static func handshakeStatuses(_ specification: Specification) -> [Int] {
        [503] + specification.refreshHandshakeStatuses + specification.terminalHandshakeStatuses
    }
    /// Close codes offered: normal (1000), then the specification's refresh and terminal
    /// ones (seed 000: 4001, 1008, 4003).
    static func closeCodes(_ specification: Specification) -> [CloseCode] {
        [CloseCode(rawValue: 1000)] + specification.refreshCloseCodes + specification.terminalCloseCodes
    }
    static let resetError = TransportError.reset(errno: "ECONNRESET")
    /// The timeout the app's ping asks for: its deadline must be armed for exactly this.
    static let pingTimeout = Duration.seconds(2)
    /// The data message every `received` input carries: the machine decides on the sequence
    /// number alone and hands the message on untouched, so one message stands for all.
    static let message = Message.text("m")

    init(codebook: MachineCodebook, bounds: ConnectionBounds, specification: Specification) {
        defer {
            late = entries.map { if case .late = $0.source { true } else { false } }
            deliveries = entries.map {
                Delivery($0.input, source: $0.source, specification: specification, codebook: codebook)
            }
            actions = zip(entries, late).map { entry, late in late ? .late(entry.input) : .input(entry.input) }
        }
        let live = MachineCodebook.current
        connect = codebook.endpoints.map { add(.connect($0), .intent) }
        disconnect = add(.disconnect(), .intent)
        background = add(.setForeground(false), .intent)
        foreground = add(.setForeground(true), .intent)
        pathLost = add(.setPathViable(false), .intent)
        pathBack = add(.setPathViable(true), .intent)
        subscribe = codebook.topics.map { add(.subscribe($0), .intent) }
        unsubscribe = codebook.topics.map { add(.unsubscribe($0), .intent) }
        send = (0..<bounds.commands).map { add(.send(CommandID(UInt64($0 + 1))), .intent) }
        if bounds.pings > 0 { ping = add(.ping(MachineCodebook.ping, timeout: Self.pingTimeout), .intent) }
        opened = add(.opened(live), .live)
        handshakeFailures = Self.handshakeStatuses(specification).map {
            add(.connectFailed(live, .handshakeRejected(status: $0)), .live)
        }
        receivedPlain = add(.received(live, Self.message, sequence: nil), .live)
        receivedSequence = (0..<bounds.serverLog).map {
            add(.received(live, Self.message, sequence: UInt64($0 + 1)), .live)
        }
        pong = add(.pong(live), .live)
        peerCloses = Self.closeCodes(specification).map {
            add(.closedByPeer(live, code: $0, reason: Self.closeReason), .live)
        }
        reset = add(.failed(live, Self.resetError), .live)
        sendCompleted = (0..<bounds.commands).map { add(.sendCompleted(live, CommandID(UInt64($0 + 1))), .live) }
        flushed = add(.flushed(live), .live)
        if bounds.pings > 0 { pingAnswered = add(.pingAnswered(live, MachineCodebook.ping), .live) }
        retry = add(.timerFired(.retry), .timer)
        connectTimeout = add(.timerFired(.connectTimeout(live)), .timer)
        heartbeat = add(.timerFired(.heartbeat(live)), .timer)
        pongDeadline = add(.timerFired(.pongDeadline(live)), .timer)
        if bounds.pings > 0 { pingDeadline = add(.timerFired(.pingDeadline(MachineCodebook.ping)), .timer) }
        refreshSucceeded = add(.credentialsRefreshed(succeeded: true), .credentials)
        refreshFailed = add(.credentialsRefreshed(succeeded: false), .credentials)
        if bounds.staleCallbacks {
            lateCurrent = addLate(MachineCodebook.current, commands: bounds.commands, pings: bounds.pings)
            lateOlder = addLate(MachineCodebook.older, commands: bounds.commands, pings: bounds.pings)
        }
        precondition(entries.count <= 128, "input table of \(entries.count) entries exceeds the cache key")
    }

    /// Every kind of callback and timer a dead generation can still deliver.
    private mutating func addLate(_ g: Generation, commands: Int, pings: Int) -> Range<Int> {
        let start = entries.count
        let current = g == MachineCodebook.current
        let late: [Input] =
            [
                .opened(g), .connectFailed(g, .handshakeRejected(status: 503)),
                .received(g, Self.message, sequence: nil), .pong(g),
                .closedByPeer(g, code: .normal, reason: "bye"), .closedByPeer(g, code: .forbidden, reason: "bye"),
                .failed(g, Self.resetError), .flushed(g), .timerFired(.connectTimeout(g)), .timerFired(.heartbeat(g)),
                .timerFired(.pongDeadline(g)),
            ] + (commands > 0 ? [.sendCompleted(g, 1)] : [])
            + (pings > 0 ? [.pingAnswered(g, MachineCodebook.ping)] : [])
        for input in late { _ = add(input, .late(current: current)) }
        return start..<entries.count
    }

    private mutating func add(_ input: Input, _ source: Source) -> Int {
        entries.append(Entry(input: input, source: source))
        return entries.count - 1
    }

    /// Every close frame a machine in this world can carry: the live closes' codes, reason "bye".
    static func closes(_ specification: Specification) -> [CloseFrame] {
        closeCodes(specification).map { CloseFrame(code: $0, reason: closeReason) }
    }
    /// The reason text of every close the environment delivers.
    static let closeReason = "bye"

    /// Every reason string a machine in this world can carry.
    static func reasons(specification: Specification) -> [String] {
        handshakeStatuses(specification).map { TransportError.handshakeRejected(status: $0).reason }
            + closeCodes(specification).map { "closed \($0)" }
            + [resetError.reason, "connect timeout", "heartbeat missed", "credentials refresh failed", "disconnected"]
    }
}
