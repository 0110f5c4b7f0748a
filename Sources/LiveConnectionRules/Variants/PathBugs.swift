package import LiveConnection

/// Never hears the app's path reports: without a path it goes on retrying, each attempt
/// failing and spending the backoff (and the attempt limit) on the outage.
package struct IgnoresPath: MachineWrapper {
    package var base: ConnectionMachine
    package init(base: ConnectionMachine) { self.base = base }

    package mutating func handle(_ input: Input, using random: inout some RandomSource) -> [Effect] {
        if case .setPathViable = input { return [] }
        return base.handle(input, using: &random)
    }
}

/// Hears the path go but misses its return while offline (a monitor callback that only
/// handles "unsatisfied"): the manager waits for a `connect(to:)` nobody makes.
package struct MissesPathReturn: MachineWrapper {
    package var base: ConnectionMachine
    package init(base: ConnectionMachine) { self.base = base }

    package mutating func handle(_ input: Input, using random: inout some RandomSource) -> [Effect] {
        if input == .setPathViable(true), case .offline = base.state { return [] }
        return base.handle(input, using: &random)
    }
}
