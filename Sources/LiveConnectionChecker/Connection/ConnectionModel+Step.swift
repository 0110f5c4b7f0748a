import LiveConnection

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
        var connectIntent = false
        var refreshSucceeded = false
        var retryDelay: Duration?

        // What the environment itself did by delivering the input.
        switch delivery {
        case .connect:
            connectIntent = true
            e.terminal = false
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
        case .terminalIfLive(let terminal): terminalNow = terminal
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
            case .open(let role):
                if e.terminal { flaws.insert(.activityAfterTerminal) }
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
                e.retryArmed = true
                retryDelay = delay
            case .arm(let timer, let role, _): timers[Int(role.rawValue)] |= Self.bit(timer)
            case .disarm(.retry, _): e.retryArmed = false
            case .disarm(let timer, let role): timers[Int(role.rawValue)] &= ~Self.bit(timer)
            case .refresh:
                if e.refreshPending { flaws.insert(.secondRefresh) }
                e.refreshPending = true
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
            let failures = refreshSucceeded ? max(0, Int(e.failuresSinceProof) - 1) : Int(e.failuresSinceProof)
            if delay < .zero || delay > retryCeilings[min(failures, retryCeilings.count - 1)] {
                flaws.insert(.delayOutOfPolicy)
            }
        }
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
    case connect
    case send(Int)
    case opened
    case received(UInt64?)
    case pong
    case flushed
    /// A close or handshake failure of the live connection, terminal or not.
    case terminalIfLive(Bool)
    case timer(MicroEffect.Timer)
    case credentials(succeeded: Bool)
    case lateOpened(current: Bool)
    case other

    init(_ input: Input, source: InputTable.Source, configuration: ConnectionConfiguration) {
        switch (source, input) {
        case (.intent, .connect): self = .connect
        case (.intent, .send(let id)): self = .send(Int(id.rawValue) - 1)
        case (.live, .opened): self = .opened
        case (.live, .received(_, let sequence)): self = .received(sequence)
        case (.live, .pong): self = .pong
        case (.live, .flushed): self = .flushed
        case (.live, .closedByPeer(_, let code, _)):
            self = .terminalIfLive(configuration.terminalCloseCodes.contains(code))
        case (.live, .connectFailed(_, .handshakeRejected(let status))):
            self = .terminalIfLive(configuration.terminalHandshakeStatuses.contains(status))
        case (.timer, .timerFired(let timer)): self = .timer(MachineStepper.timer(timer).0)
        case (.credentials, .credentialsRefreshed(let succeeded)): self = .credentials(succeeded: succeeded)
        case (.late(let current), .opened): self = .lateOpened(current: current)
        default: self = .other
        }
    }
}
