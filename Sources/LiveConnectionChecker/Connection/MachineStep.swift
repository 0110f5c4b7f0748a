import LiveConnection
import LiveConnectionRules

/// One outcome of stepping the machine: its new code and its effects, compiled to the
/// few facts the environment needs.
struct MachineOutcome: Sendable {
    /// The machine's code afterwards (generations renumbered).
    var machine: UInt64
    /// The step minted a generation (the previous one, if any, became the older one).
    var minted: Bool
    var effects: [MicroEffect]
    /// A late input of a dead generation changed the machine's value.
    var staleChanged: Bool

    /// Leaves machine and environment as they were: a late input with no effects.
    var isNoOp: Bool { effects.isEmpty && !staleChanged && !minted }
}

/// Which connection an effect is about, relative to the step: the older generation, the
/// one that was current when the step began, or one the step minted.
enum Role: UInt8, Sendable {
    case older, current, minted
}

/// An effect, reduced to what the environment tracks.
enum MicroEffect: Sendable {
    enum Timer: UInt8, Sendable { case retry, connectTimeout, heartbeat, pongDeadline, pingDeadline }
    /// How an app ping was answered.
    enum PingAnswer: UInt8, Sendable { case alive, noAnswer, failed }

    /// Open a connection to the codebook's endpoint of this index (`unknownEndpoint`: none of them).
    case open(Role, endpoint: UInt8)
    case close(Role)
    case subscribe(topic: Int, Role)
    case unsubscribe(topic: Int, Role)
    /// The resume frame, with the sequence number it asks the server to resume after (up to
    /// 7, the largest a log can hold: a cursor beyond the log sends nothing, as at 7).
    case resume(after: UInt8, Role)
    case command(Int, Role)
    case ping(Role)
    /// The app's ping sent on a connection.
    case sendPing(Role)
    /// The app's ping answered.
    case answerPing(PingAnswer)
    case arm(Timer, Role, delay: Duration)
    case disarm(Timer, Role)
    case refresh
    case complete(Int)
    case flush(Role)
    case deliver
    /// An open phase, with the attempt it names.
    case reportOpen(attempt: Int)
    /// A connecting phase, with the attempt it names.
    case reportConnecting(attempt: Int)
    /// A waiting phase: one more failure (except after a successful refresh).
    case reportWaiting
    case report

    static let unknownEndpoint: UInt8 = .max
}

/// Steps the (possibly wrapped) machine from a code, once per boundary draw when the
/// step draws, and compiles the results. Pure: the per-thread ``StepMemo`` caches it.
struct MachineStepper: Sendable {
    let codebook: MachineCodebook
    let variant: LogicVariant

    func step(_ before: ConnectionMachine, _ input: Input, stale: Bool) -> [MachineOutcome] {
        var outcomes: [MachineOutcome] = []
        for draw in BoundaryRandom.Draw.allCases {
            var machine = before
            var random = BoundaryRandom(draw)
            let effects = variant.step(input, machine: &machine, using: &random)
            outcomes.append(compile(before: before, after: machine, effects: effects, stale: stale))
            if random.draws == 0 { break }  // nothing was drawn: one outcome
        }
        return outcomes
    }

    /// The machine's real effects for one outcome (for printing counterexamples).
    func effects(_ code: UInt64, _ input: Input, draw: BoundaryRandom.Draw) -> [Effect] {
        var machine = codebook.decode(code)
        var random = BoundaryRandom(draw)
        return variant.step(input, machine: &machine, using: &random)
    }

    private func compile(before: ConnectionMachine, after: ConnectionMachine, effects: [Effect], stale: Bool)
        -> MachineOutcome
    {
        let minted = after.generation != before.generation
        var renumbered = after
        if minted {
            precondition(
                after.generation == before.generation.next,
                "one step minted \(after.generation) after \(before.generation)")
            renumbered = ConnectionMachine(
                configuration: after.configuration, state: Self.renumber(after.state), wanted: after.wanted,
                foreground: after.foreground, pathViable: after.pathViable, endpoint: after.endpoint,
                generation: MachineCodebook.current,
                failures: after.failures, lastDelay: after.lastDelay, topics: after.topics,
                hasBeenOpen: after.hasBeenOpen,
                lastSequence: after.lastSequence, refreshInFlight: after.refreshInFlight)
        }
        func role(_ g: Generation) -> Role {
            if minted && g == after.generation { return .minted }
            if g == MachineCodebook.current && before.generation == MachineCodebook.current { return .current }
            precondition(g == MachineCodebook.older, "effect names generation \(g) (before \(before.generation))")
            return .older
        }
        let micro = effects.map { effect -> MicroEffect in
            switch effect {
            case .openConnection(let g, let endpoint):
                let index = codebook.endpoints.firstIndex { $0.url == endpoint.url }
                return .open(role(g), endpoint: index.map(UInt8.init) ?? MicroEffect.unknownEndpoint)
            case .closeConnection(let g, _, _): return .close(role(g))
            case .send(let g, .control(.subscribe(let topic))): return .subscribe(topic: topicIndex(topic), role(g))
            case .send(let g, .control(.unsubscribe(let topic))): return .unsubscribe(topic: topicIndex(topic), role(g))
            case .send(let g, .control(.resume(let after))): return .resume(after: UInt8(min(after, 7)), role(g))
            case .send(let g, .command(let id)): return .command(Int(id.rawValue) - 1, role(g))
            case .ping(let g): return .ping(role(g))
            case .startTimer(let timer, let delay):
                let (kind, g) = Self.timer(timer)
                return .arm(kind, g.map(role) ?? .current, delay: delay)
            case .cancelTimer(let timer):
                let (kind, g) = Self.timer(timer)
                return .disarm(kind, g.map(role) ?? .current)
            case .refreshCredentials: return .refresh
            case .completeCommand(let id, _): return .complete(Int(id.rawValue) - 1)
            case .flush(let g): return .flush(role(g))
            case .deliverMessage: return .deliver
            case .reportGap: return .report
            case .sendPing(let g, _): return .sendPing(role(g))
            case .completePing(_, let outcome):
                switch outcome {
                case .alive: return .answerPing(.alive)
                case .noAnswer: return .answerPing(.noAnswer)
                case .failed: return .answerPing(.failed)
                }
            case .report(.open(let attempt)): return .reportOpen(attempt: attempt)
            case .report(.connecting(let attempt)): return .reportConnecting(attempt: attempt)
            case .report(.waiting): return .reportWaiting
            case .report: return .report
            }
        }
        return MachineOutcome(
            machine: codebook.encode(renumbered), minted: minted, effects: micro, staleChanged: stale && after != before
        )
    }

    private func topicIndex(_ topic: String) -> Int {
        guard let index = codebook.topics.firstIndex(of: topic) else { preconditionFailure("unknown topic \(topic)") }
        return index
    }

    static func timer(_ timer: TimerID) -> (MicroEffect.Timer, Generation?) {
        switch timer {
        case .retry: (.retry, nil)
        case .connectTimeout(let g): (.connectTimeout, g)
        case .heartbeat(let g): (.heartbeat, g)
        case .pongDeadline(let g): (.pongDeadline, g)
        case .pingDeadline: (.pingDeadline, nil)
        }
    }

    static func renumber(_ state: ConnectionMachine.State) -> ConnectionMachine.State {
        switch state {
        case .connecting: .connecting(MachineCodebook.current)
        case .subscribing(_, let pending): .subscribing(MachineCodebook.current, flushesPending: pending)
        case .open(_, let connection): .open(MachineCodebook.current, connection)
        default: state
        }
    }
}
