public import LiveConnection
public import LiveConnectionRules

/// The shipped `ConnectionMachine` (or a broken `LogicVariant` of it) inside a bounded,
/// adversarial environment, as a ``Model`` for the checker.
///
/// ```swift
/// let model = try ConnectionModel()                         // standard bounds
/// let result = ModelChecker(model).run()
/// print(result.statistics)                                  // states, depth, rate, memory
/// if let violation = result.violation {
///     for line in model.replay(violation.counterexample).lines { print(line) }
/// }
/// ```
///
/// A state is the machine's packed code plus the `Environment` (16 bytes). In every
/// state the environment offers: every intent (connect to either endpoint, disconnect,
/// background/foreground, the path lost/back, subscribe/unsubscribe, send each command
/// once, ping once); every
/// transport event the live connection can produce in its socket's state (open or
/// handshake failure 503/401/403 while connecting; data with and without sequence
/// numbers, pong, the app ping's pong, close 1000/4001/4003/1008, reset, and the transport
/// answering each flush, while the socket is open; the sequenced messages are the server's
/// log as the contract sends it: in order from the connection's cursor, set where the
/// connection opened or where its resume frame asked); every armed timer firing
/// (time is abstracted: a timer may fire whenever it is armed); the credentials provider
/// answering yes or no; late callbacks and timers of dead generations; the network going
/// down, freezing and coming back; the server logging (broadcasting) the next sequence number.
/// A step that draws a backoff delay branches three ways (``BoundaryRandom``).
///
/// The machine steps through the real `handle(_:using:)`; each (machine, input) step
/// is computed once per worker and cached (``StepMemo``): the machine part of the space
/// is small, the environment multiplies it.
public struct ConnectionModel: Model {
    /// The machine's packed code and the environment's.
    public struct State: Hashable, Sendable {
        public var machine: UInt64
        public var environment: UInt64
    }

    public typealias Action = ConnectionAction
    public typealias Memo = StepMemo

    public let configuration: ConnectionConfiguration
    /// What the properties hold the machine to (close-code classes, the backoff formulas),
    /// stated independently of the machine's code; the configuration only picks which
    /// formula applies.
    public let specification: Specification
    public let bounds: ConnectionBounds
    /// The machine under check: the shipped one, or a deliberately broken variant of the
    /// simulator's (the same wrapper code a simulated manager runs).
    public let variant: LogicVariant
    let codebook: MachineCodebook
    let inputs: InputTable
    let stepper: MachineStepper
    /// Every retry delay the policy's published formula allows after each failure count
    /// (0...failureCap), for any previous delay (the model does not track it).
    let allowedDelays: [ClosedRange<Duration>]

    /// A model of `variant` under `configuration`, in the world `bounds` describes.
    public init(
        configuration: ConnectionConfiguration = ConnectionConfiguration(),
        specification: Specification = .seedDocuments, bounds: ConnectionBounds = .standard,
        variant: LogicVariant = .correct
    ) throws(ConnectionModelError) {
        try bounds.validate()
        self.configuration = configuration
        self.specification = specification
        self.bounds = bounds
        self.variant = variant
        codebook = try MachineCodebook(
            configuration: configuration, bounds: bounds, reasons: InputTable.reasons(specification: specification),
            closes: InputTable.closes(specification))
        inputs = InputTable(codebook: codebook, bounds: bounds, specification: specification)
        stepper = MachineStepper(codebook: codebook, variant: variant)
        allowedDelays = (0...codebook.failureCap).map { failures in
            specification.allowedDelay(configuration.backoff, afterFailures: failures, previous: .unknown)
        }
    }

    public var initialStates: [State] {
        [
            State(
                machine: codebook.encode(ConnectionMachine(configuration: configuration)),
                environment: Environment().word)
        ]
    }

    public func makeMemo() -> StepMemo { StepMemo() }

    public func actions(in state: State) -> [Action] {
        var memo = StepMemo()
        var actions: [Action] = []
        expand(state, memo: &memo, where: nil) { action, choice, _ in
            if choice == 0 { actions.append(action()) }
        }
        return actions
    }

    public func next(_ action: Action, after state: State) -> [State] {
        var memo = StepMemo()
        var states: [State] = []
        expand(state, memo: &memo, where: { $0 == action }) { _, _, next in states.append(next) }
        return states
    }

    /// The decoded machine of a state (generations renumbered: the last one is g3).
    public func machine(of state: State) -> ConnectionMachine { codebook.decode(state.machine) }

    /// A multiply-xorshift mix of the two words: fast, and good in the low bits the
    /// hash tables index with.
    public func fingerprint(_ state: State) -> UInt64 {
        var x = state.machine &* 0x9E37_79B9_7F4A_7C15 ^ (state.environment &+ 0x632B_E59B_D9B4_E019)
        x ^= x >> 32
        x &*= 0xD6E8_FEB8_6659_FD93
        x ^= x >> 32
        return x
    }

    /// The machine code: states with the same machine share its cached steps.
    public func localityKey(_ state: State) -> UInt64 { state.machine }

    public func expand(
        _ state: State, memo: inout StepMemo, where filter: ((Action) -> Bool)?,
        _ body: (_ action: () -> Action, _ choice: Int, _ next: State) -> Void
    ) {
        expand(state, memo: &memo, where: filter, verdictKey: nil, body)
    }

    /// Remembers the filter's answer per input in the memo: the no-deadlock search filters
    /// every input of every state it expands, and building an action with a payload to
    /// ask costs a copy, a retain and a release each time.
    public func expand(
        _ state: State, memo: inout StepMemo, where filter: @escaping (Action) -> Bool, filterKey: Int,
        _ body: (_ action: () -> Action, _ choice: Int, _ next: State) -> Void
    ) {
        expand(state, memo: &memo, where: filter, verdictKey: filterKey, body)
    }

    private func expand(
        _ state: State, memo: inout StepMemo, where filter: ((Action) -> Bool)?, verdictKey: Int?,
        _ body: (_ action: () -> Action, _ choice: Int, _ next: State) -> Void
    ) {
        let environment = Environment(state.environment)
        guard environment.evidence.isEmpty else { return }  // a violation: nothing after it matters
        let code = state.machine
        let row = memo.row(code, inputs: inputs.entries.count)
        // Decoded once per expansion, and only if some step is not cached yet.
        var machine: ConnectionMachine?
        func deliver(_ index: Int) {
            // Built only when asked for: the search itself never looks at actions.
            func action() -> Action { inputs.actions[index] }
            if let filter {
                if let verdictKey {
                    guard
                        memo.verdict(verdictKey, index, inputs: inputs.actions.count, { filter(inputs.actions[index]) })
                    else { return }
                } else if !filter(inputs.actions[index]) {
                    return
                }
            }
            var cell = memo.cell(row, index)
            if cell == 0 {
                let late = inputs.late[index]
                let before = machine ?? codebook.decode(code)
                machine = before
                cell = memo.fill(
                    row, index, with: stepper.step(before, inputs.entries[index].input, stale: late), late: late)
            }
            // A late input that changed nothing and did nothing is a self-loop: its check
            // (stale-inputs-change-nothing) happened when the step was computed.
            if cell == StepMemo.selfLoop { return }
            let delivery = inputs.deliveries[index]
            let first = Int(cell >> 2)
            for choice in 0..<Int(cell & 3) {
                let outcome = memo.outcomes[first + choice]
                let next = memo.effects.withUnsafeBufferPointer { effects in
                    apply(
                        outcome,
                        UnsafeBufferPointer(
                            rebasing: effects[
                                Int(outcome.firstEffect)..<Int(outcome.firstEffect) + Int(outcome.effectCount)]),
                        of: delivery, before: code, environment)
                }
                body(action, choice, next)
            }
        }
        func change(_ action: Action, _ update: (inout Environment) -> Void) {
            if let filter, !filter(action) { return }
            var next = environment
            update(&next)
            body({ action }, 0, State(machine: code, environment: next.word))
        }

        // Intents.
        for index in inputs.connect { deliver(index) }
        deliver(inputs.disconnect)
        if bounds.lifecycle { deliver(MachineCodebook.foreground(code) ? inputs.background : inputs.foreground) }
        // What the app said last decides what it can say next (not the machine's belief).
        if bounds.networkPath { deliver(environment.pathDown ? inputs.pathBack : inputs.pathLost) }
        let topics = MachineCodebook.topicSet(code)
        for topic in 0..<bounds.topics {
            if topics & (1 << UInt64(topic)) != 0 {
                deliver(inputs.unsubscribe[topic])
            } else if Int(environment.flushes) <= bounds.topics {
                // Each subscribe while resubscribing asks for one more flush: cycling
                // subscribe/unsubscribe faster than the transport answers would grow the
                // count without bound, so the app waits once topics + 1 are outstanding.
                deliver(inputs.subscribe[topic])
            }
        }
        for command in 0..<bounds.commands where environment[command: command] == .unissued {
            deliver(inputs.send[command])
        }
        if let ping = inputs.ping, environment.ping == .unasked { deliver(ping) }
        // The live connection's transport.
        switch environment.socket {
        case .connecting where environment.network == .up:
            deliver(inputs.opened)
            for index in inputs.handshakeFailures { deliver(index) }
        case .open:
            if environment.network == .up {
                // The pong first: a counterexample that needs a heartbeat answered (the
                // backoff-reset rule) then takes it, which the simulated world can realize,
                // rather than a message with no sequence number, which it cannot.
                if environment.pingUnanswered { deliver(inputs.pong) }
                deliver(inputs.receivedPlain)
                // The server keeps the contract: the next logged message after the
                // connection's cursor (a replay or a live one, in order, from the moment
                // the connection opened or from where its resume frame asked), or, once the
                // cursor has passed it, the app's last message again (a replay overlapping
                // by one: a duplicate, harmless by the contract).
                let cursor = environment.serverCursor
                if cursor < environment.serverLog { deliver(inputs.receivedSequence[Int(cursor)]) }
                if environment.deliveredAny && environment.delivered <= cursor {
                    deliver(inputs.receivedSequence[Int(environment.delivered) - 1])
                }
                for index in inputs.peerCloses { deliver(index) }
                // The server answers the app's ping once, on the connection that carried it.
                if let pong = inputs.pingAnswered, environment.ping == .inFlight || environment.ping == .pongOwed {
                    deliver(pong)
                }
            }
            deliver(inputs.reset)
            for command in 0..<bounds.commands where environment[command: command] == .inFlight {
                deliver(inputs.sendCompleted[command])
            }
            if environment.flushes > 0 { deliver(inputs.flushed) }
        case .connecting, .none:
            break
        }
        // Timers and the credentials provider.
        if environment.retryArmed { deliver(inputs.retry) }
        if environment.liveTimers & Environment.connectTimeoutBit != 0 { deliver(inputs.connectTimeout) }
        if environment.liveTimers & Environment.heartbeatBit != 0 { deliver(inputs.heartbeat) }
        if environment.liveTimers & Environment.pongDeadlineBit != 0 { deliver(inputs.pongDeadline) }
        if let deadline = inputs.pingDeadline, environment.ping == .inFlight { deliver(deadline) }
        if environment.refreshPending {
            deliver(inputs.refreshSucceeded)
            deliver(inputs.refreshFailed)
        }
        // Late callbacks of dead generations.
        if MachineCodebook.minted(code) && environment.socket == .none {
            for index in inputs.lateCurrent { deliver(index) }
        }
        if environment.olderGeneration {
            for index in inputs.lateOlder { deliver(index) }
        }
        // The network and the server.
        if bounds.networkFaults {
            switch environment.network {
            case .up:
                change(.network(.down)) { $0.network = .down }
                change(.network(.freeze)) { $0.network = .frozen }
            case .down, .frozen:
                change(.network(.up)) { $0.network = .up }
            }
        }
        if Int(environment.serverLog) < bounds.serverLog {
            let sequence = UInt64(environment.serverLog) + 1
            change(.broadcast(sequence: sequence)) { $0.serverLog += 1 }
        }
    }
}

extension ConnectionModel {
    /// Runs the checker on this model. Prefer it to `ModelChecker(model).run(options)`
    /// from another module: called here, the generic search is specialized for this
    /// model's state type (several times faster than the unspecialized generic code).
    public func check(_ options: CheckOptions = CheckOptions()) -> CheckResult<ConnectionModel> {
        ModelChecker(self).run(options)
    }
}
