package import LiveConnection

// Deliberately broken managers: each wraps the real machine and rewrites its inputs or
// effects to plant one classic bug, and the test suite shows the simulator catching each.
// None of this is reachable from the shipped manager. Every wrapper keeps all its state in
// the machine it wraps (``MachineWrapper``), so the model checker steps the same code.

extension LogicVariant {
    static let brokenVariants: [LogicVariant] = [
        LogicVariant(
            name: "ignores-generations",
            summary: "drops the generation check: stale callbacks act on the live connection",
            breaks: .staleInputsChangeNothing, wrapper: IgnoresGenerations.self),
        LogicVariant(
            name: "skips-resubscribe", summary: "does not resubscribe when a connection opens",
            breaks: .resubscribeBeforeOpen, wrapper: SkipsResubscribe.self),
        LogicVariant(
            name: "never-resets-backoff", summary: "never resets the failure counter when a connection proves itself",
            breaks: .backoffWithinPolicy, wrapper: NeverResetsBackoff.self),
        LogicVariant(
            name: "leaks-sockets", summary: "never closes a connection it abandons",
            breaks: .singleLiveTransport, wrapper: LeaksSockets.self),
        LogicVariant(
            name: "no-pong-deadline", summary: "pings but never arms the pong deadline: a silent peer goes unnoticed",
            breaks: .deadPeerDetected, wrapper: NoPongDeadline.self),
        LogicVariant(
            name: "retries-terminal-close", summary: "treats 4003, 1008 and HTTP 403 as transient and reconnects",
            breaks: .quietAfterStop, wrapper: RetriesTerminalClose.self),
        LogicVariant(
            name: "duplicates-commands", summary: "writes every command frame twice",
            breaks: .commandsAtMostOnce, wrapper: DuplicatesCommands.self),
        LogicVariant(
            name: "forgets-resume", summary: "never asks the server to replay after a reconnect",
            breaks: .exactlyOnceInOrder, wrapper: ForgetsResume.self),
        LogicVariant(
            name: "reports-open-early", summary: "reports open as soon as it starts connecting",
            breaks: .reportedStateIsTrue, wrapper: ReportsOpenEarly.self),
        LogicVariant(
            name: "gives-up", summary: "never arms the retry timer: waits forever after a failure",
            breaks: .eventuallyOpen, wrapper: GivesUp.self),
        LogicVariant(
            name: "retries-immediately", summary: "ignores the backoff delay and retries at once",
            breaks: .noHotLoop, wrapper: RetriesImmediately.self),
        LogicVariant(
            name: "double-reconnect",
            summary: "schedules a second reconnect when the receive loop fails after a missed heartbeat already did",
            breaks: .staleInputsChangeNothing, wrapper: DoubleReconnect.self),
        LogicVariant(
            name: "keeps-first-endpoint",
            summary: "connect(to:) a new endpoint restarts the connection, but dials the endpoint it was first given",
            breaks: .endpointOfLastConnect, wrapper: KeepsFirstEndpoint.self),
        LogicVariant(
            name: "ignores-background", summary: "does not hear the app going to the background: the socket stays open",
            breaks: .quietInBackground, wrapper: IgnoresBackground.self),
        LogicVariant(
            name: "pong-deadline-of-p",
            summary: "arms the pong deadline for the heartbeat interval P instead of the timeout T",
            breaks: .timersArmedAsConfigured, wrapper: PongDeadlineOfP.self),
        LogicVariant(
            name: "retries-expired-credentials",
            summary: "hears 4001 and HTTP 401 as transient failures and reconnects with the expired credentials",
            breaks: .expiredCredentialsRefreshed, wrapper: RetriesExpiredCredentials.self),
        LogicVariant(
            name: "replays-initial-phase",
            summary: "a new events() subscriber gets idle, the initial phase, instead of the current one",
            breaks: .eventsFollowTheMachine, wrapper: ReplaysInitialPhase.self),
        LogicVariant(
            name: "misnumbers-open-attempt",
            summary:
                "the open phase names the failures before it (0 on the first try) instead of the attempt that succeeded",
            breaks: .backoffWithinPolicy, wrapper: MisnumbersOpenAttempt.self),
        LogicVariant(
            name: "forgets-pings",
            summary: "never answers the app's pings that were in flight when their connection ended",
            breaks: .pingsAnsweredOnce, wrapper: ForgetsPings.self),
        LogicVariant(
            name: "ignores-path",
            summary: "never hears the app's path reports: retries through an outage, spending the backoff",
            breaks: .quietWithoutPath, wrapper: IgnoresPath.self),
        LogicVariant(
            name: "misses-path-return",
            summary: "misses the path's return while offline: waits for a connect(to:) nobody makes",
            breaks: .reconnectsWhenPathReturns, wrapper: MissesPathReturn.self),
        LogicVariant(
            name: "gives-up-early",
            summary: "gives up one attempt before the app's attempt limit (an off-by-one in the limit's test)",
            breaks: .givesUpAtTheLimit, wrapper: GivesUpEarly.self),
        LogicVariant(
            name: "forgets-close-code",
            summary:
                "hands disconnect(code:reason:) on as disconnect(): the server gets 1000 \"disconnected\", not the app's frame",
            breaks: .disconnectClosesAsAsked, wrapper: ForgetsCloseCode.self),
        LogicVariant(
            name: "drops-close-reason",
            summary:
                "keeps the server's close code but passes its reason on as \"\": the app never sees the server's words",
            breaks: .closeReachesTheApp, wrapper: DropsCloseReason.self),
    ]
}

/// Relabels every callback of a dead generation with the live one (socket.io-client PR 533).
package struct IgnoresGenerations: MachineWrapper {
    package var base: ConnectionMachine
    package init(base: ConnectionMachine) { self.base = base }

    package mutating func handle(_ input: Input, using random: inout some RandomSource) -> [Effect] {
        guard let g = input.generation, let live = base.liveGeneration, g != live else {
            return base.handle(input, using: &random)
        }
        return base.handle(input.relabeled(to: live), using: &random)
    }
}

/// Subscribes once, never again (the client that gets nothing after its first reconnect).
package struct SkipsResubscribe: MachineWrapper {
    package var base: ConnectionMachine
    package init(base: ConnectionMachine) { self.base = base }

    package mutating func handle(_ input: Input, using random: inout some RandomSource) -> [Effect] {
        let effects = base.handle(input, using: &random)
        guard case .opened = input else { return effects }
        return effects.filter { if case .send(_, .control(.subscribe)) = $0 { false } else { true } }
    }
}

/// Lets a successful open keep the failure count (ferd/backoff's reset bug): the machine
/// handles the input that completes the open, then the wrapper puts back the counter and
/// last delay it had before, so every later delay is drawn as if nothing had succeeded.
package struct NeverResetsBackoff: MachineWrapper {
    package var base: ConnectionMachine
    package init(base: ConnectionMachine) { self.base = base }

    package mutating func handle(_ input: Input, using random: inout some RandomSource) -> [Effect] {
        let before = base
        let effects = base.handle(input, using: &random)
        // The reset the shipped machine makes when a connection proves itself (a transport
        // callback; intents such as connect(to:) may reset the count too, and still do).
        guard input.generation != nil, base.failures < before.failures else { return effects }
        base = ConnectionMachine(
            configuration: base.configuration, state: base.state, wanted: base.wanted, foreground: base.foreground,
            pathViable: base.pathViable,
            endpoint: base.endpoint, generation: base.generation, failures: before.failures,
            lastDelay: before.lastDelay, topics: base.topics, hasBeenOpen: base.hasBeenOpen,
            lastSequence: base.lastSequence, refreshInFlight: base.refreshInFlight)
        return effects
    }
}

/// Forgets to close: every socket it tears down stays open.
package struct LeaksSockets: MachineWrapper {
    package var base: ConnectionMachine
    package init(base: ConnectionMachine) { self.base = base }

    package mutating func handle(_ input: Input, using random: inout some RandomSource) -> [Effect] {
        base.handle(input, using: &random).filter { if case .closeConnection = $0 { false } else { true } }
    }
}

/// Pings without a deadline: a frozen peer is never declared dead.
package struct NoPongDeadline: MachineWrapper {
    package var base: ConnectionMachine
    package init(base: ConnectionMachine) { self.base = base }

    package mutating func handle(_ input: Input, using random: inout some RandomSource) -> [Effect] {
        base.handle(input, using: &random).filter { if case .startTimer(.pongDeadline, _) = $0 { false } else { true } }
    }
}

/// Hears a terminal close code as an ordinary close (1000) and HTTP 403 as a 503: transient failures.
package struct RetriesTerminalClose: MachineWrapper {
    package var base: ConnectionMachine
    package init(base: ConnectionMachine) { self.base = base }

    package mutating func handle(_ input: Input, using random: inout some RandomSource) -> [Effect] {
        let configuration = base.configuration
        switch input {
        case .closedByPeer(let g, let code, let reason) where configuration.terminalCloseCodes.contains(code):
            return base.handle(.closedByPeer(g, code: .normal, reason: reason), using: &random)
        case .connectFailed(let g, .handshakeRejected(let status))
        where configuration.terminalHandshakeStatuses.contains(status):
            return base.handle(.connectFailed(g, .handshakeRejected(status: 503)), using: &random)
        default:
            return base.handle(input, using: &random)
        }
    }
}

/// Writes each command frame twice ("retry the command" instead of the connection).
package struct DuplicatesCommands: MachineWrapper {
    package var base: ConnectionMachine
    package init(base: ConnectionMachine) { self.base = base }

    package mutating func handle(_ input: Input, using random: inout some RandomSource) -> [Effect] {
        base.handle(input, using: &random).flatMap { effect -> [Effect] in
            if case .send(_, .command) = effect { [effect, effect] } else { [effect] }
        }
    }
}

/// Reconnects without asking for what it missed.
package struct ForgetsResume: MachineWrapper {
    package var base: ConnectionMachine
    package init(base: ConnectionMachine) { self.base = base }

    package mutating func handle(_ input: Input, using random: inout some RandomSource) -> [Effect] {
        base.handle(input, using: &random).filter { if case .send(_, .control(.resume)) = $0 { false } else { true } }
    }
}

/// Tells the app "open" when it merely started dialling.
package struct ReportsOpenEarly: MachineWrapper {
    package var base: ConnectionMachine
    package init(base: ConnectionMachine) { self.base = base }

    package mutating func handle(_ input: Input, using random: inout some RandomSource) -> [Effect] {
        let effects = base.handle(input, using: &random)
        let attempt = base.failures + 1
        return effects.flatMap { effect -> [Effect] in
            if case .openConnection = effect { [effect, .report(.open(attempt: attempt))] } else { [effect] }
        }
    }
}

/// Never schedules the next attempt.
package struct GivesUp: MachineWrapper {
    package var base: ConnectionMachine
    package init(base: ConnectionMachine) { self.base = base }

    package mutating func handle(_ input: Input, using random: inout some RandomSource) -> [Effect] {
        base.handle(input, using: &random).filter { if case .startTimer(.retry, _) = $0 { false } else { true } }
    }
}

/// Retries with no delay at all (and says so: "waiting 0ms"). Under full jitter each
/// zero is a legal draw, so only the attempt rate gives it away.
package struct RetriesImmediately: MachineWrapper {
    package var base: ConnectionMachine
    package init(base: ConnectionMachine) { self.base = base }

    package mutating func handle(_ input: Input, using random: inout some RandomSource) -> [Effect] {
        base.handle(input, using: &random).map { effect in
            switch effect {
            case .startTimer(.retry, _): .startTimer(.retry, .zero)
            case .report(.waiting(let reason, _, let close)):
                .report(.waiting(reason: reason, delay: .zero, close: close))
            default: effect
            }
        }
    }
}

/// Two failure paths each run their own reconnect: the missed heartbeat schedules one,
/// then the dying connection's receive error schedules another. The second comes from a
/// dead generation, so the stale-input invariant catches it, but only when the error
/// arrives in the instant before the retry fires: a race swarm exploration hits once in
/// ~50 seeds and the model checker finds in six steps.
package struct DoubleReconnect: MachineWrapper {
    package var base: ConnectionMachine
    package init(base: ConnectionMachine) { self.base = base }

    package mutating func handle(_ input: Input, using random: inout some RandomSource) -> [Effect] {
        let effects = base.handle(input, using: &random)
        guard case .failed(let g, _) = input, g == base.generation, base.liveGeneration == nil,
            case .waiting(reason: "heartbeat missed", _) = base.state
        else { return effects }
        let delay = base.configuration.backoff.delay(
            afterFailures: base.failures, previous: base.lastDelay, using: &random)
        return effects + [.startTimer(.retry, delay), .report(base.phase)]
    }
}

extension Input {
    /// The same callback, as if generation `g` had delivered it (intents and the retry
    /// timer, which carry no generation, unchanged).
    package func relabeled(to g: Generation) -> Input {
        switch self {
        case .opened: .opened(g)
        case .connectFailed(_, let error): .connectFailed(g, error)
        case .received(_, let message, let sequence): .received(g, message, sequence: sequence)
        case .pong: .pong(g)
        case .closedByPeer(_, let code, let reason): .closedByPeer(g, code: code, reason: reason)
        case .failed(_, let error): .failed(g, error)
        case .sendCompleted(_, let id): .sendCompleted(g, id)
        case .flushed: .flushed(g)
        default: self
        }
    }
}
