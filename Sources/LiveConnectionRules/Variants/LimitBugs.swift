package import LiveConnection

// Broken variants for the app's opt-in options (the attempt limit): each plants one bug a
// maintainer could write.

/// Gives up one attempt early (`failures >= limit - 1`, an off-by-one in the limit's test):
/// the app that asked for N attempts gets N − 1, told "gave up" after a failure that should
/// have been retried.
package struct GivesUpEarly: MachineWrapper {
    package var base: ConnectionMachine
    package init(base: ConnectionMachine) { self.base = base }

    package mutating func handle(_ input: Input, using random: inout some RandomSource) -> [Effect] {
        let effects = base.handle(input, using: &random)
        guard let limit = base.configuration.maximumAttempts, case .waiting = base.phase, base.failures >= limit - 1
        else { return effects }
        let failures = base.failures
        // The stop the shipped machine makes at the limit, one failure sooner.
        let stop = base.handle(.disconnect(), using: &random).map { effect -> Effect in
            guard case .report(.stopped(_, let close)) = effect else { return effect }
            return .report(.stopped(reason: "gave up after \(failures) attempts", close: close))
        }
        return effects + stop
    }
}
