package import LiveConnection

/// Forgets the app's pings when their connection ends: the once-gate without its last
/// answer, so a ping asked just before a drop waits forever (seed 004's bug).
package struct ForgetsPings: MachineWrapper {
    package var base: ConnectionMachine
    package init(base: ConnectionMachine) { self.base = base }

    package mutating func handle(_ input: Input, using random: inout some RandomSource) -> [Effect] {
        base.handle(input, using: &random).filter { effect in
            if case .completePing(_, .failed(.connectionEnded)) = effect { false } else { true }
        }
    }
}
