import LiveConnection
import LiveConnectionRules

// How the environment follows one machine step: what it delivered, then each effect in
// order, then the end-of-step checks. Every breach found becomes evidence in the state.
extension ConnectionModel {
    func apply(
        _ outcome: CachedOutcome, _ effects: UnsafeBufferPointer<MicroEffect>, of delivery: Delivery,
        before code: UInt64, _ environment: Environment
    ) -> State {
        var e = environment
        var evidence: Evidence = []
        // Sockets and timers per role: the older generation, the one current when the
        // step began, one minted by the step.
        var sockets = PerRole<Environment.Socket>(older: .none, current: e.socket, minted: .none)
        var timers = PerRole<UInt8>(older: 0, current: e.liveTimers, minted: 0)
        var orphaned = false
        var sequence: UInt64?
        var terminalNow = false
        var refreshOwed = false
        var connectIntent = false
        // The app's connect(to:) named another endpoint while a socket was held.
        var movesAway = false
        var refreshSucceeded = false
        // With credentials fetched before every connect, a live expiry is a failure retried
        // with the wait for one failure fewer, at once the first time (no waiting phase then).
        var expiryRetried = false
        var retryDelay: Duration?
        // The path's return finds the app wanting a connection (its phase is neither idle nor
        // stopped), in the foreground, with no socket and no refresh under way: it must dial.
        var owedDial = false
        // The app's ping: what this step did to it (judged at the end of the step).
        let pingBefore = e.ping
        var pingAsked = false, pingSent = false, pingDeadlineArmed = false
        var pongArrived = false, pingDeadlineFired = false
        var pingAnswers: [MicroEffect.PingAnswer] = []

        // What the environment itself did by delivering the input.
        switch delivery {
        case .connect(let endpoint):
            connectIntent = true
            e.terminal = false
            // The socket held now was opened for the last endpoint (every open is judged
            // against it): a connect(to:) elsewhere must give it up in this very step.
            movesAway = endpoint != e.lastEndpoint && e.socket != .none
            e.lastEndpoint = endpoint
            e.failuresSinceIntent = 0  // connect(to:) may start the count again
        case .lifecycle(let foreground):
            e.background = !foreground
            if foreground { e.failuresSinceIntent = 0 }  // so may coming to the foreground
        case .path(let viable):
            let kind = MachineCodebook.kind(code)
            owedDial =
                viable && e.pathDown && kind != .idle && kind != .stopped && !e.background && e.socket == .none
                && !e.refreshPending
            e.pathDown = !viable
        case .send(let command): e[command: command] = .issued
        case .askPing: pingAsked = true
        case .pingPong: pongArrived = true
        case .timer(.pingDeadline): pingDeadlineFired = true
        case .opened:
            sockets[Int(Role.current.rawValue)] = .open
            e.serverSubscriptions = 0  // a new connection: the server knows no subscriptions
            // Once anything was delivered or a connection was open, a new one must resume:
            // the messages of the outage would be lost otherwise.
            e.resumeOwed = configuration.resume && e.streamBegan
            // The server sends a new connection the log from now on ("send me this topic's
            // messages from now on"), unless a resume frame moves its cursor (below). Until
            // the app's stream begins, it begins where this connection joined the log.
            e.serverCursor = e.serverLog
            if configuration.resume && !e.streamBegan { e.delivered = e.serverLog }
        case .received(let number):
            sequence = number
            // The server sends the log in order from its cursor; the only other number it
            // sends is a message the app already has (a duplicate).
            if let number, number == UInt64(e.serverCursor) + 1 {
                e.serverCursor += 1
            }
            // Any frame answers a ping: the connection proved itself (the backoff-reset rule).
            if e.pingUnanswered { e.restartFailureCount() }
        case .pong:
            e.pingUnanswered = false
            e.restartFailureCount()
        case .flushed: e.flushes -= 1
        case .peerEnded(let terminal, let refresh, let retried):
            terminalNow = terminal
            // One refresh at a time: a refresh already asked for answers this expiry too.
            refreshOwed = refresh && !e.refreshPending
            if retried {
                expiryRetried = true
                e.countFailure(cap: codebook.failureCap)
            }
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
                if e.terminal { evidence.insert(.activityAfterTerminal) }
                if e.pathDown { evidence.insert(.activeWithoutPath) }
                owedDial = false
                if endpoint != e.lastEndpoint { evidence.insert(.wrongEndpoint) }
                if refreshOwed { evidence.insert(.expiredNotRefreshed) }
                sockets[Int(role.rawValue)] = .connecting
            case .close(let role):
                if role == .current && sockets[1] != .none { orphaned = true }
                sockets[Int(role.rawValue)] = .none
            case .subscribe(let topic, _): e.serverSubscriptions |= 1 << UInt8(topic)
            case .unsubscribe(let topic, _): e.serverSubscriptions &= ~(1 << UInt8(topic))
            case .resume(let after, let role):
                e.resumeOwed = false
                // The server remembers N as the live connection's cursor and sends every
                // logged message above it, in order (docs/server-contract.md).
                if role == .current && !outcome.minted && sockets[1] == .open {
                    e.serverCursor = after
                }
            case .command(let command, _):
                if e[command: command] != .issued { evidence.insert(.sentTwice) }
                e[command: command] = .inFlight
            case .ping: e.pingUnanswered = true
            case .sendPing(let role):
                // Sent in answer to the app's ask, on the connection live at the end of the step.
                pingSent = pingAsked && sockets[Int(role.rawValue)] == .open
            case .answerPing(let answer): pingAnswers.append(answer)
            case .arm(.pingDeadline, _, let delay):
                if delay != InputTable.pingTimeout { evidence.insert(.timerMisarmed) }
                pingDeadlineArmed = true
            case .disarm(.pingDeadline, _):
                break  // the ping's state says whether its deadline may still fire
            case .arm(.retry, _, let delay):
                if e.retryArmed { evidence.insert(.secondReconnect) }
                if e.pathDown { evidence.insert(.activeWithoutPath) }
                if refreshOwed { evidence.insert(.expiredNotRefreshed) }
                e.retryArmed = true
                retryDelay = delay
            case .arm(let timer, let role, let delay):
                if delay != configuredDuration(timer) { evidence.insert(.timerMisarmed) }
                timers[Int(role.rawValue)] |= Self.bit(timer)
            case .disarm(.retry, _): e.retryArmed = false
            case .disarm(let timer, let role): timers[Int(role.rawValue)] &= ~Self.bit(timer)
            case .refresh:
                if e.refreshPending { evidence.insert(.secondRefresh) }
                e.refreshPending = true
                refreshOwed = false
            case .flush(let role):
                if sockets[Int(role.rawValue)] == .open { e.flushes += 1 }
            case .reportWaiting:
                // Every wait reported is one more failure, except the wait after a
                // successful refresh (the machine retries with the failures before it) and
                // the wait of an expiry already counted.
                if !refreshSucceeded && !expiryRetried { e.countFailure(cap: codebook.failureCap) }
            case .reportConnecting(let attempt):
                if !attemptFits(attempt, e) { evidence.insert(.attemptMisnumbered) }
            case .complete(let command):
                let status = e[command: command]
                if status != .issued && status != .inFlight { evidence.insert(.completedTwice) }
                e[command: command] = .completed
            case .deliver:
                // exactly-once-in-order: every sequenced message handed to the app is the next
                // one of its stream of the log. The log keeps every message, so a skip is a
                // loss, reported as a gap or not; without resume nothing is promised. The
                // first may come from before the stream began (a client that has delivered
                // nothing resumes from 0, by the contract), but may not skip what it is owed.
                if let sequence, configuration.resume {
                    let next = UInt64(e.delivered) + 1
                    if e.deliveredAny ? sequence != next : sequence > next { evidence.insert(.deliveryNotNext) }
                    e.delivered = UInt8(sequence)
                    e.deliveredAny = true
                    e.streamBegan = true
                }
            case .reportOpen(let attempt):
                if !attemptFits(attempt, e) { evidence.insert(.attemptMisnumbered) }
                let live = outcome.minted ? 2 : 1
                if sockets[live] != .open {
                    evidence.insert(.openBeforeHandshake)
                } else {
                    if UInt64(e.serverSubscriptions) != MachineCodebook.topicSet(outcome.machine) {
                        evidence.insert(.openBeforeResubscribe)
                    }
                    if e.resumeOwed { evidence.insert(.openBeforeResume) }
                }
                e.streamBegan = true
            case .report:
                break
            }
        }

        if let delay = retryDelay {
            // Connect and foreground may restart the machine's count (the judge does not read
            // whether they did): any count from the first failure to those since the connection
            // last proved itself will do. A retry after a successful refresh, or after an expiry
            // with credentials fetched before every connect, is drawn for one fewer.
            let counted = Int(e.failuresSinceProof)
            let fits = (1...max(1, counted)).contains { count in
                let failures = refreshSucceeded || expiryRetried ? count - 1 : count
                return allowedDelays[min(failures, allowedDelays.count - 1)].contains(delay)
            }
            if !fits { evidence.insert(.delayOutOfPolicy) }
        }
        if refreshOwed { evidence.insert(.expiredNotRefreshed) }
        if owedDial { evidence.insert(.pathReturnIgnored) }
        // The last connect(to:) wins in every phase, the handshake included.
        if movesAway && sockets[1] != .none { evidence.insert(.wrongEndpoint) }
        if bounds.pings > 0 {
            let carried = !orphaned && !outcome.minted && sockets[1] == .open
            if let next = Self.judgePing(
                before: pingBefore, asked: pingAsked, sent: pingSent, deadlineArmed: pingDeadlineArmed,
                pongArrived: pongArrived, deadlineFired: pingDeadlineFired, answers: pingAnswers,
                connectionStays: carried)
            {
                e.ping = next
            } else {
                evidence.insert(.pingMisanswered)
            }
        }
        // End of step: one socket, the live one; no timer of a dead connection armed.
        let live = outcome.minted ? 2 : 1
        for role in 0..<3 where role != live && sockets[role] != .none { evidence.insert(.extraSocket) }
        if outcome.minted && timers[1] != 0 { evidence.insert(.timerOfDeadConnection) }
        if sockets[live] == .none && timers[live] != 0 { evidence.insert(.timerOfDeadConnection) }
        if outcome.minted { e.olderGeneration = e.olderGeneration || MachineCodebook.minted(code) }
        e.socket = sockets[live]
        e.liveTimers = timers[live]
        if e.socket != .open {
            e.pingUnanswered = false
            e.serverSubscriptions = 0
            e.flushes = 0
            e.resumeOwed = false
            e.serverCursor = 0
            // Before the app's stream began, its place is where the next connection joins
            // the log: set when that connection opens.
            if !e.streamBegan { e.delivered = 0 }
        }
        for command in 0..<bounds.commands {
            switch e[command: command] {
            case .issued: evidence.insert(.commandHangs)
            case .inFlight where orphaned || e.socket != .open: evidence.insert(.commandHangs)
            default: break
            }
        }
        let kindAfter = MachineCodebook.kind(outcome.machine)
        if terminalNow {
            e.terminal = true
            if kindAfter != .stopped { evidence.insert(.activityAfterTerminal) }
        }
        if MachineCodebook.kind(code) == .stopped && kindAfter != .stopped && !connectIntent {
            evidence.insert(.leftStoppedWithoutConnect)
        }
        if outcome.staleChanged { evidence.insert(.staleChangedMachine) }
        e.evidence = evidence
        return State(machine: outcome.machine, environment: e.word)
    }

    /// pings-answered-once, for one step: the app's ping afterwards, or nil for a breach.
    /// Exactly one answer per ask: at once without an open connection, else by whichever
    /// comes first of its pong (alive), its deadline (no answer; armed for the timeout the
    /// app asked for) and its connection's end (failed). A ping left in flight must ride the
    /// live connection with its deadline armed, so it cannot wait forever; once answered,
    /// its pong may still come and must change nothing.
    static func judgePing(
        before: Environment.Ping, asked: Bool, sent: Bool, deadlineArmed: Bool, pongArrived: Bool,
        deadlineFired: Bool, answers: [MicroEffect.PingAnswer], connectionStays: Bool
    ) -> Environment.Ping? {
        let waiting = asked || before == .inFlight
        guard answers.count <= (waiting ? 1 : 0) else { return nil }  // answered twice, or never asked
        if let answer = answers.first {
            // The outcome says what happened.
            switch answer {
            case .alive: guard pongArrived && before == .inFlight else { return nil }
            case .noAnswer: guard deadlineFired && before == .inFlight else { return nil }
            case .failed: guard !pongArrived && !deadlineFired else { return nil }
            }
            // Past its deadline on a connection that stays, the server's pong is still to come.
            return answer == .noAnswer && connectionStays ? .pongOwed : .answered
        }
        if asked {
            // Not answered at once: in flight on the live connection, its deadline armed.
            return sent && deadlineArmed && connectionStays ? .inFlight : nil
        }
        switch before {
        case .inFlight:
            // Its pong, its deadline and its connection's end each must answer it.
            return !pongArrived && !deadlineFired && connectionStays ? .inFlight : nil
        case .pongOwed: return pongArrived || !connectionStays ? .answered : .pongOwed
        case .unasked, .answered: return before
        }
    }

    /// "connecting attempt=n" and "open attempt=n" (the attempt that succeeded) count from 1
    /// since the connection last proved itself (Phase's documentation, docs/architecture.md):
    /// n − 1 failures, where an intent may have started the count again. The judge's count
    /// saturates where the codebook's does: from there on it knows only "at least".
    func attemptFits(_ attempt: Int, _ e: Environment) -> Bool {
        let low = Int(e.failuresSinceIntent)
        let high = Int(e.failuresSinceProof) >= codebook.failureCap ? Int.max : Int(e.failuresSinceProof)
        return (low...high).contains(attempt - 1)
    }

    /// The duration the configuration names for a connection's timer (the retry's is the
    /// backoff's, judged apart).
    func configuredDuration(_ timer: MicroEffect.Timer) -> Duration? {
        switch timer {
        case .retry: nil
        case .connectTimeout: configuration.connectTimeout
        case .heartbeat: configuration.heartbeatInterval
        case .pongDeadline: configuration.heartbeatTimeout
        case .pingDeadline: InputTable.pingTimeout
        }
    }

    static func bit(_ timer: MicroEffect.Timer) -> UInt8 {
        switch timer {
        case .retry: 0
        case .connectTimeout: Environment.connectTimeoutBit
        case .heartbeat: Environment.heartbeatBit
        case .pongDeadline: Environment.pongDeadlineBit
        case .pingDeadline: 0  // the ping's own state, not the connection's timers
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
    /// The app's path report.
    case path(viable: Bool)
    /// The app asks for its ping.
    case askPing
    /// The server's pong for the app's ping arrives on the live connection.
    case pingPong
    /// A close or handshake failure of the live connection, classified by the specification:
    /// terminal, an expiry to refresh, or an expiry retried with fresh credentials (fetched
    /// before every connect, so no refresh of its own).
    case peerEnded(terminal: Bool, refresh: Bool, retried: Bool)
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
        case (.intent, .setPathViable(let viable)): self = .path(viable: viable)
        case (.intent, .send(let id)): self = .send(Int(id.rawValue) - 1)
        case (.intent, .ping): self = .askPing
        case (.live, .pingAnswered): self = .pingPong
        case (.live, .opened): self = .opened
        case (.live, .received(_, _, let sequence)): self = .received(sequence)
        case (.live, .pong): self = .pong
        case (.live, .flushed): self = .flushed
        // Credentials fetched before every connect need no refresh on expiry: the
        // configuration picks which rule of the specification applies.
        case (.live, .closedByPeer(_, let code, _)):
            let expiry = specification.refreshes(close: code)
            let afterExpiry = codebook.configuration.credentialsTiming == .afterExpiry
            self = .peerEnded(
                terminal: specification.isTerminal(close: code), refresh: expiry && afterExpiry,
                retried: expiry && !afterExpiry)
        case (.live, .connectFailed(_, .handshakeRejected(let status))):
            let expiry = specification.refreshes(handshakeStatus: status)
            let afterExpiry = codebook.configuration.credentialsTiming == .afterExpiry
            self = .peerEnded(
                terminal: specification.isTerminal(handshakeStatus: status), refresh: expiry && afterExpiry,
                retried: expiry && !afterExpiry)
        case (.timer, .timerFired(let timer)): self = .timer(MachineStepper.timer(timer).0)
        case (.credentials, .credentialsRefreshed(let succeeded)): self = .credentials(succeeded: succeeded)
        case (.late(let current), .opened): self = .lateOpened(current: current)
        default: self = .other
        }
    }
}
