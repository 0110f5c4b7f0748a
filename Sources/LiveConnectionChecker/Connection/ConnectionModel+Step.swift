import LiveConnection
import LiveConnectionSimulator

// How the environment follows one machine step: what it delivered, then each effect in
// order, then the end-of-step checks. Every breach found becomes a flaw in the state.
extension ConnectionModel {
    func apply(
        _ outcome: CachedOutcome, _ effects: UnsafeBufferPointer<MicroEffect>, of delivery: Delivery,
        before code: UInt64, _ environment: Environment
    ) -> State {
        var e = environment
        var flaws: Flaws = []
        // Sockets and timers per role: the older generation, the one current when the
        // step began, one minted by the step.
        var sockets = PerRole<Environment.Socket>(older: .none, current: e.socket, minted: .none)
        var timers = PerRole<UInt8>(older: 0, current: e.liveTimers, minted: 0)
        var orphaned = false
        var sequence: UInt64?
        var terminalNow = false
        var refreshOwed = false
        var connectIntent = false
        var refreshSucceeded = false
        var retryDelay: Duration?

        // What the environment itself did by delivering the input.
        switch delivery {
        case .connect(let endpoint):
            connectIntent = true
            e.terminal = false
            e.lastEndpoint = endpoint
        case .lifecycle(let foreground):
            e.background = !foreground
        case .send(let command): e[command: command] = .issued
        case .opened:
            sockets[Int(Role.current.rawValue)] = .open
            e.serverSubscriptions = 0  // a new connection: the server knows no subscriptions
            // Once anything was delivered or a connection was open, a new one must resume:
            // the messages of the outage would be lost otherwise.
            e.resumeOwed = configuration.resume && (e.delivered != 0 || e.everOpen)
        case .received(let number):
            sequence = number
            // Any frame answers a ping: the connection proved itself (the backoff-reset rule).
            if e.pingUnanswered { e.failuresSinceProof = 0 }
        case .pong:
            e.pingUnanswered = false
            e.failuresSinceProof = 0
        case .flushed: e.flushes -= 1
        case .peerEnded(let terminal, let refresh):
            terminalNow = terminal
            // One refresh at a time: a refresh already asked for answers this expiry too.
            refreshOwed = refresh && !e.refreshPending
        case .timer(.retry): e.retryArmed = false
        case .timer(let timer): timers[1] &= ~Self.bit(timer)
        case .credentials(let succeeded):
            e.refreshPending = false
            refreshSucceeded = succeeded
        case .lateOpened(let current):
            // A late open really opened a socket, which the machine must close at once.
            sockets[current ? 1 : 0] = .open
        case .other:
            break
        }

        for effect in effects {
            switch effect {
            case .open(let role, let endpoint):
                if e.terminal { flaws.insert(.activityAfterTerminal) }
                if endpoint != e.lastEndpoint { flaws.insert(.wrongEndpoint) }
                if refreshOwed { flaws.insert(.expiredNotRefreshed) }
                sockets[Int(role.rawValue)] = .connecting
            case .close(let role):
                if role == .current && sockets[1] != .none { orphaned = true }
                sockets[Int(role.rawValue)] = .none
            case .subscribe(let topic, _): e.serverSubscriptions |= 1 << UInt8(topic)
            case .unsubscribe(let topic, _): e.serverSubscriptions &= ~(1 << UInt8(topic))
            case .resume: e.resumeOwed = false
            case .command(let command, _):
                if e[command: command] != .issued { flaws.insert(.sentTwice) }
                e[command: command] = .inFlight
            case .ping: e.pingUnanswered = true
            case .arm(.retry, _, let delay):
                if e.retryArmed { flaws.insert(.secondReconnect) }
                if refreshOwed { flaws.insert(.expiredNotRefreshed) }
                e.retryArmed = true
                retryDelay = delay
            case .arm(let timer, let role, let delay):
                if delay != configuredDuration(timer) { flaws.insert(.timerMisarmed) }
                timers[Int(role.rawValue)] |= Self.bit(timer)
            case .disarm(.retry, _): e.retryArmed = false
            case .disarm(let timer, let role): timers[Int(role.rawValue)] &= ~Self.bit(timer)
            case .refresh:
                if e.refreshPending { flaws.insert(.secondRefresh) }
                e.refreshPending = true
                refreshOwed = false
            case .flush(let role):
                if sockets[Int(role.rawValue)] == .open { e.flushes += 1 }
            case .reportWaiting:
                // Every wait reported is one more failure, except the wait after a
                // successful refresh (the machine retries with the failures before it).
                if !refreshSucceeded {
                    e.failuresSinceProof = min(e.failuresSinceProof + 1, UInt8(codebook.failureCap))
                }
            case .complete(let command):
                let status = e[command: command]
                if status != .issued && status != .inFlight { flaws.insert(.completedTwice) }
                e[command: command] = .completed
            case .deliver:
                if let sequence {
                    if sequence <= UInt64(e.delivered) { flaws.insert(.deliveredOutOfOrder) }
                    e.delivered = UInt8(sequence)
                }
            case .reportOpen:
                let live = outcome.minted ? 2 : 1
                if sockets[live] != .open {
                    flaws.insert(.openBeforeHandshake)
                } else {
                    if UInt64(e.serverSubscriptions) != MachineCodebook.topicSet(outcome.machine) {
                        flaws.insert(.openBeforeResubscribe)
                    }
                    if e.resumeOwed { flaws.insert(.openBeforeResume) }
                }
                e.everOpen = true
            case .report:
                break
            }
        }

        if let delay = retryDelay {
            // Connect and foreground may restart the machine's count (the judge does not read
            // whether they did): any count from the first failure to those since the connection
            // last proved itself will do. A retry after a successful refresh is drawn for one fewer.
            let counted = Int(e.failuresSinceProof)
            let fits = (1...max(1, counted)).contains { count in
                let failures = refreshSucceeded ? count - 1 : count
                return allowedDelays[min(failures, allowedDelays.count - 1)].contains(delay)
            }
            if !fits { flaws.insert(.delayOutOfPolicy) }
        }
        if refreshOwed { flaws.insert(.expiredNotRefreshed) }
        // End of step: one socket, the live one; no timer of a dead connection armed.
        let live = outcome.minted ? 2 : 1
        for role in 0..<3 where role != live && sockets[role] != .none { flaws.insert(.extraSocket) }
        if outcome.minted && timers[1] != 0 { flaws.insert(.timerOfDeadConnection) }
        if sockets[live] == .none && timers[live] != 0 { flaws.insert(.timerOfDeadConnection) }
        if outcome.minted { e.olderGeneration = e.olderGeneration || MachineCodebook.minted(code) }
        e.socket = sockets[live]
        e.liveTimers = timers[live]
        if e.socket != .open {
            e.pingUnanswered = false
            e.serverSubscriptions = 0
            e.flushes = 0
            e.resumeOwed = false
        }
        for command in 0..<bounds.commands {
            switch e[command: command] {
            case .issued: flaws.insert(.commandHangs)
            case .inFlight where orphaned || e.socket != .open: flaws.insert(.commandHangs)
            default: break
            }
        }
        let kindAfter = MachineCodebook.kind(outcome.machine)
        if terminalNow {
            e.terminal = true
            if kindAfter != .stopped { flaws.insert(.activityAfterTerminal) }
        }
        if MachineCodebook.kind(code) == .stopped && kindAfter != .stopped && !connectIntent {
            flaws.insert(.leftStoppedWithoutConnect)
        }
        if outcome.staleChanged { flaws.insert(.staleChangedMachine) }
        e.flaws = flaws
        return State(machine: outcome.machine, environment: e.word)
    }

    /// The duration the configuration names for a connection's timer (the retry's is the
    /// backoff's, judged apart).
    func configuredDuration(_ timer: MicroEffect.Timer) -> Duration? {
        switch timer {
        case .retry: nil
        case .connectTimeout: configuration.connectTimeout
        case .heartbeat: configuration.heartbeatInterval
        case .pongDeadline: configuration.heartbeatTimeout
        }
    }

    static func bit(_ timer: MicroEffect.Timer) -> UInt8 {
        switch timer {
        case .retry: 0
        case .connectTimeout: Environment.connectTimeoutBit
        case .heartbeat: Environment.heartbeatBit
        case .pongDeadline: Environment.pongDeadlineBit
        }
    }
}

/// One value per ``Role`` (a fixed triple: no allocation on the hot path).
struct PerRole<Value> {
    var older: Value
    var current: Value
    var minted: Value

    subscript(_ index: Int) -> Value {
        get {
            switch index {
            case 0: older
            case 1: current
            default: minted
            }
        }
        set {
            switch index {
            case 0: older = newValue
            case 1: current = newValue
            default: minted = newValue
            }
        }
    }
}

/// What delivering an input does to the environment before the machine's effects, by
/// input (precomputed per entry of the ``InputTable``: no payloads, no reference counting).
enum Delivery: Sendable {
    /// `connect(to:)` the codebook's endpoint of this index.
    case connect(UInt8)
    case send(Int)
    case opened
    case received(UInt64?)
    case pong
    case flushed
    case lifecycle(foreground: Bool)
    /// A close or handshake failure of the live connection, classified by the specification.
    case peerEnded(terminal: Bool, refresh: Bool)
    case timer(MicroEffect.Timer)
    case credentials(succeeded: Bool)
    case lateOpened(current: Bool)
    case other

    init(_ input: Input, source: InputTable.Source, specification: Specification, codebook: MachineCodebook) {
        switch (source, input) {
        case (.intent, .connect(let endpoint)):
            let index = codebook.endpoints.firstIndex(of: endpoint).map(UInt8.init) ?? MicroEffect.unknownEndpoint
            self = .connect(index)
        case (.intent, .setForeground(let foreground)): self = .lifecycle(foreground: foreground)
        case (.intent, .send(let id)): self = .send(Int(id.rawValue) - 1)
        case (.live, .opened): self = .opened
        case (.live, .received(_, let sequence)): self = .received(sequence)
        case (.live, .pong): self = .pong
        case (.live, .flushed): self = .flushed
        // Credentials fetched before every connect need no refresh on expiry: the
        // configuration picks which rule of the specification applies.
        case (.live, .closedByPeer(_, let code, _)):
            self = .peerEnded(
                terminal: specification.isTerminal(close: code),
                refresh: specification.refreshes(close: code) && codebook.configuration.credentialsTiming == .afterExpiry)
        case (.live, .connectFailed(_, .handshakeRejected(let status))):
            self = .peerEnded(
                terminal: specification.isTerminal(handshakeStatus: status),
                refresh: specification.refreshes(handshakeStatus: status)
                    && codebook.configuration.credentialsTiming == .afterExpiry)
        case (.timer, .timerFired(let timer)): self = .timer(MachineStepper.timer(timer).0)
        case (.credentials, .credentialsRefreshed(let succeeded)): self = .credentials(succeeded: succeeded)
        case (.late(let current), .opened): self = .lateOpened(current: current)
        default: self = .other
        }
    }
}
