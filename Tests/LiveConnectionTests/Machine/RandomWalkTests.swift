import LiveConnectionSimulator
import Testing

@testable import LiveConnection

/// A seeded random walk over the pure machine: a generator that knows the live generation
/// feeds it plausible and stale inputs, a toy shell applies its effects, and the catalogue's
/// rules are checked after every step — each failure named by its ``Rule`` (the names of
/// `livesim explore` and `livesim check`), or `structure` for the machine value's own
/// consistency (its facts agree with its state), which no catalogue rule speaks of.
@Suite("Machine: random walk")
struct RandomWalkTests {
    static let policies: [BackoffPolicy] = [
        .fullJitter(), .equalJitter(), .decorrelatedJitter(), .proportionalJitter(), .exponential(), .table(),
    ]

    @Test("structural invariants hold after every step of a random walk", arguments: policies, 0..<24 as Range<UInt64>)
    func invariantsHold(policy: BackoffPolicy, seed: UInt64) throws {
        var walk = RandomWalk(policy: policy, seed: seed)
        for _ in 0..<600 {
            walk.step()
            if !walk.violations.isEmpty { break }
        }
        walk.finish()
        #expect(
            walk.violations.isEmpty,
            "seed \(seed), \(policy): \(walk.violations.joined(separator: "; "))\nlast inputs:\n\(walk.history.suffix(12).joined(separator: "\n"))"
        )
        // The walk must have exercised the machine, not idled in one state.
        #expect(walk.opens > 0, "seed \(seed): never opened")
    }

    @Test("a broken rule reads with the catalogue's name, as explore and check spell it")
    func namesComeFromTheCatalogue() {
        var walk = RandomWalk(policy: .fullJitter(), seed: 1)
        walk.fail(.staleInputsChangeNothing, "planted")
        #expect(walk.violations == ["step 0 (-): stale-inputs-change-nothing: planted"])
    }

    @Test("the same seed walks the same path")
    func walksAreReproducible() {
        func run() -> [String] {
            var walk = RandomWalk(policy: .fullJitter(), seed: 7)
            for _ in 0..<300 { walk.step() }
            return walk.history
        }
        #expect(run() == run())
    }
}

/// The walk: machine, toy shell, input generator, invariant checks.
struct RandomWalk {
    var machine: ConnectionMachine
    var machineRandom: Xoshiro256StarStar
    var random: Xoshiro256StarStar
    var history: [String] = []
    var violations: [String] = []

    // The toy shell's view, built only from effects.
    /// Generations with an `openConnection` and no `closeConnection` since.
    var sockets: [Generation] = []
    var armed: [TimerID] = []
    var refreshPending = false
    /// A `flush` the toy transport has not answered with `flushed` yet.
    var flushPending: Generation?
    /// Per generation: the topics its socket is subscribed to (from the sends), and the
    /// resume it must send (the last sequence when it opened).
    var subscribedOn: [Generation: [String]] = [:]
    var resumeOn: [Generation: [UInt64]] = [:]
    var resumeExpected: [Generation: UInt64?] = [:]
    /// Commands sent on a generation whose transport has not taken them yet.
    var unsentCommands: [(Generation, CommandID)] = []
    var issued: [CommandID] = []
    var answers: [CommandID: Int] = [:]
    var nextCommand: CommandID = 1
    /// App pings asked for, their answers so far, and the ones sent whose pong could still come.
    var pingsAsked: [PingID] = []
    var pingAnswers: [PingID: Int] = [:]
    var nextPing: PingID = 1
    var pingsSent: [(Generation, PingID)] = []
    /// The server's sequence counter, and the sequences the machine delivered.
    var serverSequence: UInt64 = 0
    var delivered: [UInt64] = []
    var opens = 0

    init(policy: BackoffPolicy, seed: UInt64) {
        var configuration = ConnectionConfiguration()
        configuration.backoff = policy
        machine = ConnectionMachine(configuration: configuration)
        machineRandom = Xoshiro256StarStar(seed: seed ^ 0x9E37_79B9)
        random = Xoshiro256StarStar(seed: seed)
    }

    mutating func pick<T>(_ choices: [T]) -> T { choices[Int(random.uniform(below: UInt64(choices.count)))] }

    /// A generation that is not the live one (0 if none was ever minted).
    mutating func staleGeneration() -> Generation {
        let live = machine.liveGeneration
        let candidates = (0...machine.generation.rawValue).map { Generation($0) }.filter { $0 != live }
        return pick(candidates)
    }

    /// The next input: mostly what a real shell and network could produce now.
    mutating func nextInput() -> Input {
        let live = machine.liveGeneration
        switch random.uniform(below: 100) {
        case 0..<4: return .connect(pick([.primary, .secondary]))
        case 4..<7: return .disconnect()
        case 7..<12: return .setForeground(random.chance(0.6))
        case 12..<16: return .subscribe(pick(["availability", "loans", "holds"]))
        case 16..<18: return .unsubscribe(pick(["availability", "loans", "holds"]))
        case 18..<24:
            defer { nextCommand = CommandID(nextCommand.rawValue + 1) }
            return .send(nextCommand)
        case 29:
            // The app's path monitor; mostly "viable", so the walk spends time connected.
            return .setPathViable(random.chance(0.6))
        case 26..<29:
            defer { nextPing = PingID(nextPing.rawValue + 1) }
            return .ping(nextPing, timeout: .seconds(Int64(1 + random.uniform(below: 20))))
        case 24..<26 where refreshPending:  // a slow provider: triggers pile up meanwhile
            return .credentialsRefreshed(succeeded: random.chance(0.7))
        case 30..<45 where !armed.isEmpty:
            return .timerFired(pick(armed))
        case 45..<52:
            // A stale input of any kind.
            let g = staleGeneration()
            return pick([
                .opened(g), .connectFailed(g, .refused), .received(g, .payload, sequence: serverSequence), .pong(g),
                .closedByPeer(g, code: .tokenExpired, reason: "late"), .failed(g, .reset(errno: "EPIPE")),
                .sendCompleted(g, CommandID(random.uniform(below: nextCommand.rawValue))),
                .timerFired(.connectTimeout(g)), .timerFired(.heartbeat(g)), .timerFired(.pongDeadline(g)),
                .pingAnswered(g, PingID(random.uniform(below: nextPing.rawValue))),
            ])
        default:
            break
        }
        guard let g = live else { return machine.pathViable ? .setForeground(true) : .setPathViable(true) }
        if case .subscribing = machine.state, flushPending == g, random.chance(0.5) {
            return .flushed(g)
        }
        if case .connecting = machine.state {
            return random.chance(0.7)
                ? .opened(g)
                : .connectFailed(
                    g,
                    pick([
                        .refused, .handshakeRejected(status: 503), .handshakeRejected(status: 401),
                        .handshakeRejected(status: 403),
                    ]))
        }
        switch random.uniform(below: 10) {
        case 0..<4:
            // The server sends the next message, sometimes replays one, sometimes skips one.
            switch random.uniform(below: 6) {
            case 0: return .received(g, .payload, sequence: nil)
            case 1: return .received(g, .payload, sequence: max(serverSequence, 1) - 1)
            case 2:
                serverSequence += 2
                return .received(g, .payload, sequence: serverSequence)
            default:
                serverSequence += 1
                return .received(g, .payload, sequence: serverSequence)
            }
        case 4: return pingsSent.isEmpty || random.chance(0.5) ? .pong(g) : .pingAnswered(g, pick(pingsSent).1)
        case 5..<7 where !unsentCommands.isEmpty:
            let (generation, id) = pick(unsentCommands)
            return .sendCompleted(generation, id)
        case 7:
            return .closedByPeer(
                g, code: pick([.normal, .goingAway, .internalError, .tokenExpired, .forbidden, .policyViolation]),
                reason: "server")
        default:
            return .failed(g, .reset(errno: "ECONNRESET"))
        }
    }

    mutating func step() {
        let input = nextInput()
        history.append(input.description)
        apply(input)
    }

    /// Disconnects and checks that every command and every app ping was answered exactly once.
    mutating func finish() {
        apply(.disconnect())
        for id in issued where answers[id] != 1 {
            fail(.commandsCompletedOnce, "\(id) answered \(answers[id] ?? 0) times")
        }
        for id in pingsAsked where pingAnswers[id] != 1 {
            fail(.pingsAnsweredOnce, "\(id) answered \(pingAnswers[id] ?? 0) times")
        }
        if !sockets.isEmpty { fail(.singleLiveTransport, "sockets \(sockets) still open after disconnect") }
        if !armed.isEmpty { fail(.timersDieWithConnection, "timers \(armed) still armed after disconnect") }
    }

    /// What is right, from the seed documents, not from the code under test (the backoff
    /// formulas above all: a wrong formula in the policy would otherwise judge itself).
    static let specification = Specification.seedDocuments

    /// Records a broken rule (nil: the machine's value contradicts itself).
    mutating func fail(_ rule: Rule?, _ message: String) {
        violations.append("step \(history.count) (\(history.last ?? "-")): \(rule?.name ?? "structure"): \(message)")
    }

    mutating func apply(_ input: Input) {
        let before = machine
        if case .send(let id) = input { issued.append(id) }
        if case .ping(let id, _) = input { pingsAsked.append(id) }
        if case .timerFired(let timer) = input { armed.removeAll { $0 == timer } }
        if case .credentialsRefreshed = input { refreshPending = false }
        if case .sendCompleted(let g, let id) = input { unsentCommands.removeAll { $0 == (g, id) } }
        if case .flushed(let g) = input, flushPending == g { flushPending = nil }
        if case .opened(let g) = input, case .connecting(g) = before.state {
            // Resume after the last delivered sequence; from 0 once a connection has been open.
            resumeExpected[g] =
                before.configuration.resume && (before.lastSequence != nil || before.hasBeenOpen)
                ? (before.lastSequence ?? 0) : nil
        }
        let effects = machine.handle(input, using: &machineRandom)

        // Stale inputs change nothing; a late open is closed.
        if let g = input.generation, g != before.liveGeneration {
            if machine != before { fail(.staleInputsChangeNothing, "stale \(input) changed the machine") }
            let allowed: [Effect] =
                if case .opened = input { [.closeConnection(g, code: .normal, reason: "stale connection")] } else { [] }
            if effects != allowed { fail(.staleInputsChangeNothing, "stale \(input) produced \(effects)") }
        }
        // Nothing but reports (and refusals) after stopping, until connect(to:).
        if case .stopped = before.state, !isConnect(input) {
            for effect in effects {
                switch effect {
                case .report, .completeCommand(_, .notConnected), .completePing(_, .failed(.notConnected)): break
                case .closeConnection(let g, _, _) where !sockets.contains(g): break  // a late open, closed
                default: fail(.quietAfterStop, "\(effect) while stopped")
                }
            }
        }

        // The path: no attempt and no failure counted while it is unviable; its return
        // reconnects an offline machine at once.
        let attempts = effects.contains { if case .openConnection = $0 { true } else { false } }
        if !machine.pathViable && attempts {
            fail(.quietWithoutPath, "\(input) opened a connection while the path is unviable")
        }
        if !before.pathViable && !machine.pathViable && machine.failures > before.failures {
            fail(
                .quietWithoutPath,
                "\(input) counted a failure while the path is unviable (\(before.failures) → \(machine.failures))")
        }
        if input == .setPathViable(true), case .offline = before.state, !attempts {
            fail(
                .reconnectsWhenPathReturns,
                "the path returned to an offline machine but nothing was opened (\(effects))")
        }

        var lastDelay = before.lastDelay
        for effect in effects {
            switch effect {
            case .openConnection(let g, let endpoint):
                if !sockets.isEmpty { fail(.singleLiveTransport, "open \(g) while \(sockets) still open") }
                if g != before.generation.next {
                    fail(
                        .staleInputsChangeNothing,
                        "open \(g) does not follow \(before.generation): generations are never reused")
                }
                if endpoint != machine.endpoint {
                    fail(
                        .endpointOfLastConnect,
                        "open to \(endpoint), not the chosen \(String(describing: machine.endpoint))")
                }
                sockets.append(g)
            case .closeConnection(let g, _, _):
                sockets.removeAll { $0 == g }
                unsentCommands.removeAll { $0.0 == g }
                if flushPending == g { flushPending = nil }
            case .send(let g, let outbound):
                guard machine.connectedGeneration == g, sockets == [g] else {
                    fail(
                        .phaseMatchesSocket, "send \(outbound) on \(g), which is not connected (state \(machine.state))"
                    )
                    break
                }
                switch outbound {
                case .command(let id):
                    if case .open = machine.state {} else { fail(.commandsNeverHang, "command \(id) sent before open") }
                    unsentCommands.append((g, id))
                case .control(.subscribe(let topic)): subscribedOn[g, default: []].append(topic)
                case .control(.unsubscribe(let topic)): subscribedOn[g, default: []].removeAll { $0 == topic }
                case .control(.resume(let after)): resumeOn[g, default: []].append(after)
                }
            case .flush(let g):
                if machine.connectedGeneration != g || sockets != [g] {
                    fail(.phaseMatchesSocket, "flush on \(g), which is not connected")
                }
                flushPending = g
            case .ping(let g):
                if case .open(g, _) = machine.state, sockets == [g] {
                } else {
                    fail(.phaseMatchesSocket, "ping on \(g), which is not open")
                }
            case .startTimer(let timer, let delay):
                armed.removeAll { $0 == timer }
                armed.append(timer)
                if timer == .retry {
                    let policy = machine.configuration.backoff
                    let bound = Self.specification.maximumDelay(policy)
                    if delay < .zero || delay > bound {
                        fail(.backoffWithinPolicy, "retry delay \(delay) outside 0…\(bound)")
                    }
                    let allowed = Self.specification.allowedDelay(
                        policy, afterFailures: max(machine.failures - (isRefreshDelay(input) ? 1 : 0), 0),
                        previous: lastDelay.map { .known($0) } ?? .none)
                    if !allowed.contains(delay) {
                        fail(.backoffWithinPolicy, "retry delay \(delay) outside \(allowed)")
                    }
                    lastDelay = delay
                }
            case .cancelTimer(let timer):
                armed.removeAll { $0 == timer }
            case .refreshCredentials:
                if refreshPending { fail(.oneRefreshAtATime, "a second refresh while one is in flight") }
                refreshPending = true
            case .sendPing(let g, let id):
                if case .open(g, _) = machine.state, sockets == [g] {
                } else {
                    fail(.phaseMatchesSocket, "ping \(id) on \(g), which is not open")
                }
                pingsSent.append((g, id))
            case .completePing(let id, _):
                pingAnswers[id, default: 0] += 1
                if pingAnswers[id]! > 1 { fail(.pingsAnsweredOnce, "\(id) answered twice") }
                if !pingsAsked.contains(id) { fail(.pingsAnsweredOnce, "\(id) answered but never asked") }
                pingsSent.removeAll { $0.1 == id }
            case .completeCommand(let id, _):
                answers[id, default: 0] += 1
                if answers[id]! > 1 { fail(.commandsCompletedOnce, "\(id) answered twice") }
                if !issued.contains(id) { fail(.commandsCompletedOnce, "\(id) answered but never sent") }
            case .deliverMessage:
                if case .received(_, _, let sequence?) = input {
                    if let last = delivered.last, sequence <= last {
                        fail(.exactlyOnceInOrder, "delivered \(sequence) after \(last)")
                    }
                    delivered.append(sequence)
                }
            case .reportGap:
                break
            case .report(.open):
                opens += 1
                guard case .open(let g, _) = machine.state else {
                    fail(.openOnlyAfterHandshake, "reported open in \(machine.state)"); break
                }
                // Every topic subscribed on this socket, the resume sent, and the transport took them.
                let subscribed = subscribedOn[g] ?? []
                if subscribed != machine.topics {
                    fail(.resubscribeBeforeOpen, "open on \(g) subscribed to \(subscribed), topics \(machine.topics)")
                }
                let resumes = resumeOn[g] ?? []
                let expectedResume = (resumeExpected[g] ?? nil).map { [$0] } ?? []
                if resumes != expectedResume {
                    fail(.resumeBeforeOpen, "open on \(g) after resumes \(resumes), expected \(expectedResume)")
                }
                if !(input == .flushed(g)) {
                    fail(
                        .resubscribeBeforeOpen,
                        "open on \(g) reported on \(input), not on the flush that says the transport took the subscriptions"
                    )
                }
            case .report:
                break
            }
        }
        checkState(before: before, effects: effects)
    }

    func isConnect(_ input: Input) -> Bool { if case .connect = input { true } else { false } }

    /// A successful refresh draws the delay for the failures before the expiry.
    func isRefreshDelay(_ input: Input) -> Bool { input == .credentialsRefreshed(succeeded: true) }

    mutating func checkState(before: ConnectionMachine, effects: [Effect]) {
        // One live generation at most, and the shell holds exactly its socket.
        let live = machine.liveGeneration
        if sockets != (live.map { [$0] } ?? []) {
            fail(.singleLiveTransport, "sockets \(sockets) but live generation \(String(describing: live))")
        }
        // Timers match the state exactly: none leaks, none is missing.
        var expected: [TimerID] = []
        switch machine.state {
        case .connecting(let g), .subscribing(let g, _): expected = [.connectTimeout(g)]
        case .open(let g, let connection):
            expected =
                (connection.awaitingPong ? [.heartbeat(g), .pongDeadline(g)] : [.heartbeat(g)])
                + connection.pingsInFlight.map { .pingDeadline($0) }
        case .waiting: expected = [.retry]
        case .idle, .refreshing, .backgrounded, .offline, .stopped: expected = []
        }
        if Set(armed) != Set(expected) {
            fail(
                Set(armed).isSubset(of: Set(expected)) ? .progressIsArmed : .timersDieWithConnection,
                "armed \(armed) in state \(machine.state), expected \(expected)")
        }
        // The three facts.
        switch machine.state {
        case .connecting, .subscribing, .open, .waiting:
            if !machine.wanted || !machine.foreground {
                fail(nil, "\(machine.state) but wanted \(machine.wanted) foreground \(machine.foreground)")
            }
            if case .waiting = machine.state, !machine.pathViable { fail(nil, "waiting for a retry without a path") }
        case .offline:
            if !machine.wanted || !machine.foreground || machine.pathViable {
                fail(
                    nil,
                    "offline but wanted \(machine.wanted) foreground \(machine.foreground) path \(machine.pathViable)")
            }
        case .backgrounded:
            if !machine.wanted || machine.foreground {
                fail(nil, "backgrounded but wanted \(machine.wanted) foreground \(machine.foreground)")
            }
        case .refreshing:
            if !machine.wanted { fail(nil, "refreshing but not wanted") }
        case .idle, .stopped:
            if machine.wanted { fail(nil, "\(machine.state) but wanted") }
        }
        // Commands in flight are exactly the ones sent and not yet answered, only while open.
        let unanswered = issued.filter { answers[$0] == nil }
        if machine.commandsInFlight != unanswered {
            fail(.commandsNeverHang, "in flight \(machine.commandsInFlight), unanswered \(unanswered)")
        }
        if case .open = machine.state {
        } else if !machine.commandsInFlight.isEmpty {
            fail(.commandsNeverHang, "commands in flight in \(machine.state)")
        }
        // App pings in flight are exactly the ones sent and not yet answered, only while open.
        let pending = pingsAsked.filter { pingAnswers[$0] == nil }
        if machine.pingsInFlight != pending {
            fail(.pingsAnsweredOnce, "pings in flight \(machine.pingsInFlight), unanswered \(pending)")
        }
        // Every change of phase is reported, and the last report is the current phase.
        if before.phase != machine.phase, effects.phases.last != machine.phase {
            fail(.eventsFollowTheMachine, "phase \(before.phase) → \(machine.phase) reported as \(effects.phases)")
        }
        if refreshPending != machine.refreshInFlight {
            fail(.oneRefreshAtATime, "refresh pending \(refreshPending), machine says \(machine.refreshInFlight)")
        }
    }
}
