package import LiveConnection

// Bugs of the pure machine that the shell in front of it absorbs: the model checker
// finds them (its properties read the machine's effects); replaying the checker's
// counterexample in the simulator shows that the shipped shell hides them.

extension LogicVariant {
    static let machineLevelVariants: [LogicVariant] = [
        LogicVariant(
            name: "double-reconnect",
            summary: "schedules a second reconnect when the receive loop fails after a missed heartbeat already did",
            breaks: nil, wrapper: DoubleReconnect.self)
    ]
}

/// Two failure paths each run their own reconnect: the missed heartbeat schedules one,
/// then the dying connection's receive error schedules another. In a shell that starts a
/// timer per `startTimer` effect this opens two sockets; ours keys timers by name, so the
/// second draw only replaces the first (see docs/model-checking.md).
package struct DoubleReconnect: MachineWrapper {
    package var base: ConnectionMachine
    package init(base: ConnectionMachine) { self.base = base }

    package mutating func handle(_ input: Input, using random: inout some RandomSource) -> [Effect] {
        let effects = base.handle(input, using: &random)
        guard case .failed(let g, _) = input, g == base.generation, base.liveGeneration == nil,
            case .waiting(reason: "heartbeat missed") = base.state
        else { return effects }
        let delay = base.configuration.backoff.delay(
            afterFailures: base.failures, previous: base.lastDelay, using: &random)
        return effects + [.startTimer(.retry, delay), .report(base.phase)]
    }
}
