/// What the connection model tracks around the machine: the network, the transport's
/// sockets and armed timers as the machine's effects left them, the server, the app's
/// commands, and the contract breaches observed (``Evidence``), packed into 64 bits.
///
/// The environment learns everything from the machine's *effects* and its own
/// deliveries, never from the machine's fields, so what the properties check is the
/// machine's observable behaviour.
///
/// Layout (bit offsets): network 0–1, an older generation exists 2, live socket 3–4,
/// timers 5–8 (retry, connect timeout, heartbeat, pong deadline), heartbeat ping unanswered
/// 9, server log 10–12, server subscriptions 13–15, the app's place in the log 16–18, three
/// 2-bit slots 19–24 (the app's commands; with an app ping in the bounds, the third slot is
/// the ping's, see ``Ping``), refresh pending 25, terminal close seen 26, failures since
/// proof 27–30, in the background 31, the evidence 32–36, the server's cursor on the live
/// connection 37–39, a sequenced message was delivered 40, (41–53 free), flushes
/// outstanding 54–56, resume owed 57, the app's stream began 58, the last `connect(to:)`'s
/// endpoint 59, the app reported the path unviable 60, failures since the last intent that
/// may restart the count 61–63 (saturating at 7: from there on only "at least 7" is known).
struct Environment: Hashable, Sendable {
    enum Network: UInt8 { case up, down, frozen }
    enum Socket: UInt8 { case none, connecting, open }
    enum Command: UInt8 { case unissued, issued, inFlight, completed }
    /// The app's one ping, as the app and the server see it.
    enum Ping: UInt8 {
        case unasked
        /// Sent on the live connection, its deadline armed: its pong, its deadline or the
        /// connection's end answers it.
        case inFlight
        /// Answered (its deadline passed), but the server's pong is still to come on the
        /// live connection: the once-gate must let it change nothing.
        case pongOwed
        case answered
    }
    /// The slot the app's ping uses (the bounds leave it free of commands).
    static let pingSlot = 2

    var network = Network.up
    var olderGeneration = false
    var socket = Socket.none
    var retryArmed = false
    /// The live generation's timers: connect timeout, heartbeat, pong deadline (bits 0–2).
    var liveTimers: UInt8 = 0
    var pingUnanswered = false
    /// The highest sequence number the server has logged (broadcast).
    var serverLog: UInt8 = 0
    var serverSubscriptions: UInt8 = 0
    /// The server's cursor on the live connection (contract: "on `resume after N`, remember
    /// N as the connection's cursor"; without a resume, a connection gets the log from the
    /// moment it opened): it has sent, or was told the client holds, every message up to
    /// this one, and sends the next one logged. Meaningful while the socket is open.
    var serverCursor: UInt8 = 0
    /// The app's place in the server's log: the last sequence number delivered to it, or,
    /// before its stream began (``streamBegan``), where the live connection joined the log.
    /// Every message above it is owed to the app, once, in order (exactly-once-in-order).
    var delivered: UInt8 = 0
    /// A sequenced message was delivered to the app: ``delivered`` is the last one.
    var deliveredAny = false
    var commands: (Command, Command, Command) = (.unissued, .unissued, .unissued)
    var refreshPending = false
    var terminal = false
    var failuresSinceProof: UInt8 = 0
    /// Failures since the count may last have started again: a proof, or an intent the
    /// specification lets restart it (`connect(to:)`, coming to the foreground). The
    /// machine's count lies between this and `failuresSinceProof`. It saturates at 7 (a
    /// lower bound stays a lower bound), so the packed word keeps room for the app's ping.
    var failuresSinceIntent: UInt8 = 0
    var evidence: Evidence = []
    /// Flushes the live connection was asked for and has not answered.
    var flushes: UInt8 = 0
    /// The live connection opened after a sequenced message and has not asked to resume.
    var resumeOwed = false
    /// The app's stream of the log began: open was reported, or a sequenced message was
    /// delivered (the contract's "a connection has been open before, or L was delivered":
    /// from then on a new connection must resume, and nothing above ``delivered`` may be lost).
    var streamBegan = false
    /// The app is in the background (it said so last).
    var background = false
    /// The endpoint (index) the app named in its last `connect(to:)`.
    var lastEndpoint: UInt8 = 0
    /// The app reported the network path unviable (it said so last).
    var pathDown = false

    /// One more failure, on both counts (each saturates at `cap`, as the codebook's does).
    mutating func countFailure(cap: Int) {
        failuresSinceProof = min(failuresSinceProof + 1, UInt8(cap))
        failuresSinceIntent = min(failuresSinceIntent + 1, UInt8(min(cap, 7)))
    }

    /// The connection proved itself: the count starts again.
    mutating func restartFailureCount() {
        failuresSinceProof = 0
        failuresSinceIntent = 0
    }

    static let connectTimeoutBit: UInt8 = 1
    static let heartbeatBit: UInt8 = 2
    static let pongDeadlineBit: UInt8 = 4

    init() {}

    init(_ word: UInt64) {
        network = Network(rawValue: UInt8(word & 3)) ?? .up
        olderGeneration = word & (1 << 2) != 0
        socket = Socket(rawValue: UInt8((word >> 3) & 3)) ?? .none
        retryArmed = word & (1 << 5) != 0
        liveTimers = UInt8((word >> 6) & 7)
        pingUnanswered = word & (1 << 9) != 0
        serverLog = UInt8((word >> 10) & 7)
        serverCursor = UInt8((word >> 37) & 7)
        deliveredAny = word & (1 << 40) != 0
        serverSubscriptions = UInt8((word >> 13) & 7)
        delivered = UInt8((word >> 16) & 7)
        commands = (
            Command(rawValue: UInt8((word >> 19) & 3)) ?? .unissued,
            Command(rawValue: UInt8((word >> 21) & 3)) ?? .unissued,
            Command(rawValue: UInt8((word >> 23) & 3)) ?? .unissued
        )
        refreshPending = word & (1 << 25) != 0
        terminal = word & (1 << 26) != 0
        failuresSinceProof = UInt8((word >> 27) & 15)
        background = word & (1 << 31) != 0
        evidence = Self.evidence(word)
        flushes = UInt8((word >> 54) & 7)
        resumeOwed = word & (1 << 57) != 0
        streamBegan = word & (1 << 58) != 0
        lastEndpoint = UInt8((word >> 59) & 1)
        pathDown = word & (1 << 60) != 0
        failuresSinceIntent = UInt8((word >> 61) & 7)
    }

    var word: UInt64 {
        var word = UInt64(network.rawValue)
        if olderGeneration { word |= 1 << 2 }
        word |= UInt64(socket.rawValue) << 3
        if retryArmed { word |= 1 << 5 }
        word |= UInt64(liveTimers) << 6
        if pingUnanswered { word |= 1 << 9 }
        word |= UInt64(serverLog) << 10
        word |= UInt64(serverCursor) << 37
        if deliveredAny { word |= 1 << 40 }
        word |= UInt64(serverSubscriptions) << 13
        word |= UInt64(delivered) << 16
        word |=
            UInt64(commands.0.rawValue) << 19 | UInt64(commands.1.rawValue) << 21 | UInt64(commands.2.rawValue) << 23
        if refreshPending { word |= 1 << 25 }
        if terminal { word |= 1 << 26 }
        word |= UInt64(failuresSinceProof) << 27
        if background { word |= 1 << 31 }
        word |= UInt64(evidence.packed) << 32
        word |= UInt64(flushes) << 54
        if resumeOwed { word |= 1 << 57 }
        if streamBegan { word |= 1 << 58 }
        word |= UInt64(lastEndpoint) << 59
        if pathDown { word |= 1 << 60 }
        word |= UInt64(failuresSinceIntent) << 61
        return word
    }

    /// The evidence of a packed environment, without unpacking the rest.
    static func evidence(_ word: UInt64) -> Evidence { Evidence(packed: UInt8(truncatingIfNeeded: word >> 32) & 31) }

    static func == (lhs: Environment, rhs: Environment) -> Bool { lhs.word == rhs.word }
    func hash(into hasher: inout Hasher) { hasher.combine(word) }

    /// The app's ping, in the slot the bounds keep for it (``pingSlot``).
    var ping: Ping {
        get { Ping(rawValue: self[command: Self.pingSlot].rawValue) ?? .unasked }
        set { self[command: Self.pingSlot] = Command(rawValue: newValue.rawValue) ?? .unissued }
    }

    subscript(command index: Int) -> Command {
        get {
            switch index {
            case 0: commands.0
            case 1: commands.1
            default: commands.2
            }
        }
        set {
            switch index {
            case 0: commands.0 = newValue
            case 1: commands.1 = newValue
            default: commands.2 = newValue
            }
        }
    }
}

/// Contract breaches the environment observed while applying one step's effects: each bit
/// is the evidence that one rule was broken, for the `always` property of the connection
/// model that judges it, numbered in the order of those properties; a state carrying
/// evidence is a violation. (Evidence, not a word for the rules themselves: those are the
/// catalogue's `Rule`s.)
///
/// A state with evidence is never expanded, and the checker reports the first property (in
/// order) a state violates, so the packed state keeps only the first evidence of its step
/// (``packed``, five bits): the same property is reported, and of the 17 bits this frees,
/// four hold the server's cursor and whether the app was handed a sequenced message.
struct Evidence: OptionSet, Hashable, Sendable {
    let rawValue: UInt32

    init(rawValue: UInt32) { self.rawValue = rawValue }

    /// The packed form: 0 for none, else 1 + the index of the first evidence bit.
    var packed: UInt8 { rawValue == 0 ? 0 : UInt8(rawValue.trailingZeroBitCount + 1) }

    init(packed: UInt8) { rawValue = packed == 0 ? 0 : 1 << UInt32(packed - 1) }
    static let staleChangedMachine = Evidence(rawValue: 1 << 0)
    static let extraSocket = Evidence(rawValue: 1 << 1)
    static let openBeforeHandshake = Evidence(rawValue: 1 << 2)
    static let openBeforeResubscribe = Evidence(rawValue: 1 << 3)
    static let openBeforeResume = Evidence(rawValue: 1 << 4)
    static let secondReconnect = Evidence(rawValue: 1 << 5)
    static let delayOutOfPolicy = Evidence(rawValue: 1 << 6)
    /// backoff-within-policy's evidence too: one bit per property, in the properties' order.
    static let attemptMisnumbered = delayOutOfPolicy
    static let activityAfterTerminal = Evidence(rawValue: 1 << 7)
    static let leftStoppedWithoutConnect = Evidence(rawValue: 1 << 8)
    static let completedTwice = Evidence(rawValue: 1 << 9)
    static let sentTwice = Evidence(rawValue: 1 << 10)
    static let commandHangs = Evidence(rawValue: 1 << 11)
    static let timerOfDeadConnection = Evidence(rawValue: 1 << 12)
    /// A delivery that is not the next message of the app's stream of the log: a repeat, a
    /// reordering, or a skip of a message the server still holds (the model's log loses none).
    static let deliveryNotNext = Evidence(rawValue: 1 << 13)
    static let secondRefresh = Evidence(rawValue: 1 << 14)
    static let wrongEndpoint = Evidence(rawValue: 1 << 15)
    static let timerMisarmed = Evidence(rawValue: 1 << 16)
    static let expiredNotRefreshed = Evidence(rawValue: 1 << 17)
    static let activeWithoutPath = Evidence(rawValue: 1 << 18)
    static let pathReturnIgnored = Evidence(rawValue: 1 << 19)
    static let pingMisanswered = Evidence(rawValue: 1 << 20)
}
