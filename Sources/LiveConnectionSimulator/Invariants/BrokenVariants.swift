import LiveConnection

// Deliberately broken managers: each wraps the real machine and rewrites its inputs or
// effects to plant one classic bug, and the test suite shows the simulator catching each.
// None of this is reachable from the shipped manager.

extension LogicVariant {
    static let brokenVariants: [LogicVariant] = [
        LogicVariant(
            name: "ignores-generations", summary: "drops the generation check: stale callbacks act on the live connection",
            breaks: .staleInputsChangeNothing
        ) { IgnoresGenerations(base: ConnectionMachine(configuration: $0)) },
        LogicVariant(
            name: "skips-resubscribe", summary: "does not resubscribe when a connection opens",
            breaks: .resubscribeBeforeOpen
        ) { SkipsResubscribe(base: ConnectionMachine(configuration: $0)) },
        LogicVariant(
            name: "never-resets-backoff", summary: "never resets the failure counter after a successful open",
            breaks: .backoffWithinPolicy
        ) { NeverResetsBackoff(base: ConnectionMachine(configuration: $0)) },
        LogicVariant(
            name: "leaks-sockets", summary: "never closes a connection it abandons",
            breaks: .singleLiveTransport
        ) { LeaksSockets(base: ConnectionMachine(configuration: $0)) },
        LogicVariant(
            name: "no-pong-deadline", summary: "pings but never arms the pong deadline: a silent peer goes unnoticed",
            breaks: .deadPeerDetected
        ) { NoPongDeadline(base: ConnectionMachine(configuration: $0)) },
        LogicVariant(
            name: "retries-terminal-close", summary: "treats 4003, 1008 and HTTP 403 as transient and reconnects",
            breaks: .quietAfterStop
        ) { RetriesTerminalClose(base: ConnectionMachine(configuration: $0)) },
        LogicVariant(
            name: "duplicates-commands", summary: "writes every command frame twice",
            breaks: .commandsAtMostOnce
        ) { DuplicatesCommands(base: ConnectionMachine(configuration: $0)) },
        LogicVariant(
            name: "forgets-resume", summary: "never asks the server to replay after a reconnect",
            breaks: .exactlyOnceInOrder
        ) { ForgetsResume(base: ConnectionMachine(configuration: $0)) },
        LogicVariant(
            name: "reports-open-early", summary: "reports open as soon as it starts connecting",
            breaks: .reportedStateIsTrue
        ) { ReportsOpenEarly(base: ConnectionMachine(configuration: $0)) },
        LogicVariant(
            name: "gives-up", summary: "never arms the retry timer: waits forever after a failure",
            breaks: .eventuallyOpen
        ) { GivesUp(base: ConnectionMachine(configuration: $0)) },
        LogicVariant(
            name: "retries-immediately", summary: "ignores the backoff delay and retries at once",
            breaks: .noHotLoop
        ) { RetriesImmediately(base: ConnectionMachine(configuration: $0)) },
    ]
}

/// Relabels every callback of a dead generation with the live one (socket.io-client PR 533).
struct IgnoresGenerations: ConnectionLogic {
    var base: ConnectionMachine
    var phase: Phase { base.phase }

    mutating func handle(_ input: Input, using random: inout some RandomSource) -> [Effect] {
        guard let g = input.generation, let live = base.liveGeneration, g != live else {
            return base.handle(input, using: &random)
        }
        let relabeled: Input =
            switch input {
            case .opened: .opened(live)
            case .connectFailed(_, let error): .connectFailed(live, error)
            case .received(_, let sequence): .received(live, sequence: sequence)
            case .pong: .pong(live)
            case .closedByPeer(_, let code, let reason): .closedByPeer(live, code: code, reason: reason)
            case .failed(_, let error): .failed(live, error)
            case .sendCompleted(_, let id): .sendCompleted(live, id)
            case .flushed: .flushed(live)
            default: input
            }
        return base.handle(relabeled, using: &random)
    }
}

/// Subscribes once, never again (the client that gets nothing after its first reconnect).
struct SkipsResubscribe: ConnectionLogic {
    var base: ConnectionMachine
    var phase: Phase { base.phase }

    mutating func handle(_ input: Input, using random: inout some RandomSource) -> [Effect] {
        let effects = base.handle(input, using: &random)
        guard case .opened = input else { return effects }
        return effects.filter { if case .send(_, .subscribe) = $0 { false } else { true } }
    }
}

/// Draws every delay as if no connection had ever succeeded (ferd/backoff's reset bug).
struct NeverResetsBackoff: ConnectionLogic {
    var base: ConnectionMachine
    var failuresEver = 0
    var phase: Phase { base.phase }

    mutating func handle(_ input: Input, using random: inout some RandomSource) -> [Effect] {
        var effects = base.handle(input, using: &random)
        for index in effects.indices {
            guard case .startTimer(.retry, _) = effects[index] else { continue }
            failuresEver += 1
            let delay = base.configuration.backoff.delay(afterFailures: failuresEver, previous: base.lastDelay, using: &random)
            effects[index] = .startTimer(.retry, delay)
        }
        return effects
    }
}

/// Forgets to close: every socket it tears down stays open.
struct LeaksSockets: ConnectionLogic {
    var base: ConnectionMachine
    var phase: Phase { base.phase }

    mutating func handle(_ input: Input, using random: inout some RandomSource) -> [Effect] {
        base.handle(input, using: &random).filter { if case .closeConnection = $0 { false } else { true } }
    }
}

/// Pings without a deadline: a frozen peer is never declared dead.
struct NoPongDeadline: ConnectionLogic {
    var base: ConnectionMachine
    var phase: Phase { base.phase }

    mutating func handle(_ input: Input, using random: inout some RandomSource) -> [Effect] {
        base.handle(input, using: &random).filter { if case .startTimer(.pongDeadline, _) = $0 { false } else { true } }
    }
}

/// Hears a terminal close code or HTTP 403 as a transient failure.
struct RetriesTerminalClose: ConnectionLogic {
    var base: ConnectionMachine
    var phase: Phase { base.phase }

    mutating func handle(_ input: Input, using random: inout some RandomSource) -> [Effect] {
        let configuration = base.configuration
        switch input {
        case .closedByPeer(let g, let code, let reason) where configuration.terminalCloseCodes.contains(code):
            return base.handle(.closedByPeer(g, code: .internalError, reason: reason), using: &random)
        case .connectFailed(let g, .handshakeRejected(let status)) where configuration.terminalHandshakeStatuses.contains(status):
            return base.handle(.connectFailed(g, .handshakeRejected(status: 503)), using: &random)
        default:
            return base.handle(input, using: &random)
        }
    }
}

/// Writes each command frame twice ("retry the command" instead of the connection).
struct DuplicatesCommands: ConnectionLogic {
    var base: ConnectionMachine
    var phase: Phase { base.phase }

    mutating func handle(_ input: Input, using random: inout some RandomSource) -> [Effect] {
        base.handle(input, using: &random).flatMap { effect -> [Effect] in
            if case .send(_, .command) = effect { [effect, effect] } else { [effect] }
        }
    }
}

/// Reconnects without asking for what it missed.
struct ForgetsResume: ConnectionLogic {
    var base: ConnectionMachine
    var phase: Phase { base.phase }

    mutating func handle(_ input: Input, using random: inout some RandomSource) -> [Effect] {
        base.handle(input, using: &random).filter { if case .send(_, .resume) = $0 { false } else { true } }
    }
}

/// Tells the app "open" when it merely started dialling.
struct ReportsOpenEarly: ConnectionLogic {
    var base: ConnectionMachine
    var phase: Phase { base.phase }

    mutating func handle(_ input: Input, using random: inout some RandomSource) -> [Effect] {
        base.handle(input, using: &random).flatMap { effect -> [Effect] in
            if case .openConnection = effect { [effect, .report(.open)] } else { [effect] }
        }
    }
}

/// Never schedules the next attempt.
struct GivesUp: ConnectionLogic {
    var base: ConnectionMachine
    var phase: Phase { base.phase }

    mutating func handle(_ input: Input, using random: inout some RandomSource) -> [Effect] {
        base.handle(input, using: &random).filter { if case .startTimer(.retry, _) = $0 { false } else { true } }
    }
}

/// Retries with no delay at all.
struct RetriesImmediately: ConnectionLogic {
    var base: ConnectionMachine
    var phase: Phase { base.phase }

    mutating func handle(_ input: Input, using random: inout some RandomSource) -> [Effect] {
        base.handle(input, using: &random).map { effect in
            if case .startTimer(.retry, _) = effect { .startTimer(.retry, .zero) } else { effect }
        }
    }
}
