public import LiveConnection

/// A counterexample of the connection model as the real machine lives it: real
/// generation numbers, the backoff draw taken, and the effects each input produced.
///
/// ```swift
/// let replay = model.replay(violation.counterexample)
/// for line in replay.lines { print(line) }
/// // 1. connect wss://a.example/live
/// //    → phase connecting attempt=1; open g1 wss://a.example/live; start-timer connect-timeout(g1) 10000ms
/// ```
///
/// `steps[i].action` is what a simulator trace needs to reproduce the run: the intents,
/// transport events, timer fires and network changes, in order.
public struct ConnectionReplay: Sendable {
    /// One numbered step.
    public struct Step: Sendable {
        /// 1-based.
        public var number: Int
        /// The action, with the generations the real machine minted.
        public var action: ConnectionAction
        /// The backoff draw the step took, if it drew.
        public var draw: BoundaryRandom.Draw?
        /// The random words the step consumed, in order (a trace hands them to a
        /// simulated manager so it draws the same delays).
        public var words: [UInt64]
        /// What the machine did (empty for network and server actions).
        public var effects: [Effect]
    }

    public var steps: [Step]

    /// The numbered list, one input per line followed by its effects.
    public var lines: [String] {
        steps.flatMap { step -> [String] in
            let draw = step.draw.map { " [draw: \($0)]" } ?? ""
            let effects =
                step.effects.isEmpty ? "(no effects)" : step.effects.map(\.description).joined(separator: "; ")
            return ["\(step.number). \(step.action)\(draw)", "   → \(effects)"]
        }
    }
}

extension ConnectionModel {
    /// Replays a counterexample on a real machine (same variant, same draws), mapping
    /// the model's renumbered generations back to the ones actually minted.
    public func replay(_ counterexample: CounterexamplePath<ConnectionModel>) -> ConnectionReplay {
        var machine = ConnectionMachine(configuration: configuration)
        var steps: [ConnectionReplay.Step] = []
        for (offset, step) in counterexample.steps.enumerated() {
            let real = machine.generation
            func map(_ g: Generation) -> Generation {
                g == MachineCodebook.current ? real : Generation(real.rawValue > 0 ? real.rawValue - 1 : 0)
            }
            var action = step.action
            var effects: [Effect] = []
            var draw: BoundaryRandom.Draw?
            var words: [UInt64] = []
            if let input = step.action.input {
                let mapped =
                    input.generation.map { input.relabeled(to: map($0)) } ?? Self.mapTimer(input, map)
                action = step.action == .input(input) ? .input(mapped) : .late(mapped)
                var random = BoundaryRandom(BoundaryRandom.Draw.allCases[step.choice])
                effects = variant.step(mapped, machine: &machine, using: &random)
                if random.draws > 0 { draw = random.draw }
                words = Array(repeating: random.draw.word, count: random.draws)
            }
            steps.append(.init(number: offset + 1, action: action, draw: draw, words: words, effects: effects))
        }
        return ConnectionReplay(steps: steps)
    }

    private static func mapTimer(_ input: Input, _ map: (Generation) -> Generation) -> Input {
        guard case .timerFired(let timer) = input else { return input }
        switch timer {
        case .retry: return input
        case .connectTimeout(let g): return .timerFired(.connectTimeout(map(g)))
        case .heartbeat(let g): return .timerFired(.heartbeat(map(g)))
        case .pongDeadline(let g): return .timerFired(.pongDeadline(map(g)))
        case .pingDeadline: return input  // named by the ping, not by a generation
        }
    }
}
