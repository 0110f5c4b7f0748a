package import LiveConnection

// Broken variants for the rules judged from the public surface (endpoints, the app's
// lifecycle, timer durations, credentials, the events() stream): each plants one bug a
// maintainer could write, in a wrapper that keeps all its state in the machine.

/// `connect(to:)` while connected restarts the connection, but with the address the
/// manager was first given (a reconnect built from a captured copy of the URL).
package struct KeepsFirstEndpoint: MachineWrapper {
    package var base: ConnectionMachine
    package init(base: ConnectionMachine) { self.base = base }

    package mutating func handle(_ input: Input, using random: inout some RandomSource) -> [Effect] {
        guard case .connect(let requested) = input, base.wanted, let first = base.endpoint, requested != first else {
            return base.handle(input, using: &random)
        }
        return base.handle(.disconnect(), using: &random) + base.handle(.connect(first), using: &random)
    }
}

/// Never told about the background (phoenix 3161's other half: a socket kept in the background).
package struct IgnoresBackground: MachineWrapper {
    package var base: ConnectionMachine
    package init(base: ConnectionMachine) { self.base = base }

    package mutating func handle(_ input: Input, using random: inout some RandomSource) -> [Effect] {
        if input == .setForeground(false) { return [] }
        return base.handle(input, using: &random)
    }
}

/// The two heartbeat knobs mixed up: the deadline runs for P, so a dead peer takes 2P to find.
package struct PongDeadlineOfP: MachineWrapper {
    package var base: ConnectionMachine
    package init(base: ConnectionMachine) { self.base = base }

    package mutating func handle(_ input: Input, using random: inout some RandomSource) -> [Effect] {
        let interval = base.configuration.heartbeatInterval
        return base.handle(input, using: &random).map { effect in
            if case .startTimer(.pongDeadline(let g), _) = effect {
                .startTimer(.pongDeadline(g), interval)
            } else {
                effect
            }
        }
    }
}

/// Hears "token expired" (4001, HTTP 401) as an ordinary close (1000) and a 503.
package struct RetriesExpiredCredentials: MachineWrapper {
    package var base: ConnectionMachine
    package init(base: ConnectionMachine) { self.base = base }

    package mutating func handle(_ input: Input, using random: inout some RandomSource) -> [Effect] {
        switch input {
        case .closedByPeer(let g, CloseCode(rawValue: 4001), let reason):
            base.handle(.closedByPeer(g, code: .normal, reason: reason), using: &random)
        case .connectFailed(let g, .handshakeRejected(status: 401)):
            base.handle(.connectFailed(g, .handshakeRejected(status: 503)), using: &random)
        default:
            base.handle(input, using: &random)
        }
    }
}

/// A stream that starts from a default value instead of the current one (a publish subject
/// where a behaviour subject was meant): late subscribers believe the manager is idle.
package struct ReplaysInitialPhase: MachineWrapper {
    package var base: ConnectionMachine
    package init(base: ConnectionMachine) { self.base = base }

    package var phase: Phase { .idle }

    package mutating func handle(_ input: Input, using random: inout some RandomSource) -> [Effect] {
        base.handle(input, using: &random)
    }
}

/// `open(attempt:)` one low: the failures before the attempt instead of the attempt itself
/// (an off-by-one between "attempt n" and "n − 1 failures"). The phase a new `events()`
/// subscriber is replayed says the same, so only the number is wrong.
package struct MisnumbersOpenAttempt: MachineWrapper {
    package var base: ConnectionMachine
    package init(base: ConnectionMachine) { self.base = base }

    package var phase: Phase { Self.lower(base.phase) }

    package mutating func handle(_ input: Input, using random: inout some RandomSource) -> [Effect] {
        base.handle(input, using: &random).map { effect in
            if case .report(let phase) = effect { .report(Self.lower(phase)) } else { effect }
        }
    }

    private static func lower(_ phase: Phase) -> Phase {
        if case .open(let attempt) = phase { .open(attempt: attempt - 1) } else { phase }
    }
}
