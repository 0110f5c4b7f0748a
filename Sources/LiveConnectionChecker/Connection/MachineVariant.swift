public import LiveConnection

/// The machine under check: the shipped ``ConnectionMachine`` or a deliberately broken
/// variant of it, built as a wrapper that rewrites the machine's inputs or effects.
///
/// ```swift
/// let model = ConnectionModel(variant: .noResubscribe)
/// let result = ModelChecker(model).run()
/// result.violation?.property   // "resubscribe-before-open", after 3 steps
/// ```
///
/// The variants exist to prove the checker's power: each is a bug class from the seed
/// documents, and a test asserts the checker finds it with a shortest counterexample.
/// None of them is a switch inside the shipped machine; each wraps `handle(_:using:)`.
public enum MachineVariant: String, CaseIterable, Hashable, Sendable, CustomStringConvertible {
    /// The shipped machine, unwrapped.
    case correct
    /// Relabels every callback of a dead generation with the live one (socket.io-client
    /// PR 533: an old socket's late `onclose` tears down the new one).
    case noGenerationCheck = "no-generation-check"
    /// Drops the subscribe frames sent when a connection opens (a client that subscribed
    /// once gets nothing after its first reconnect).
    case noResubscribe = "no-resubscribe"
    /// Does not let a successful open reset the failure counter: the machine handles the
    /// input that completes the open, then the wrapper restores the counter and last
    /// delay it had before.
    case noBackoffReset = "no-backoff-reset"
    /// Reports open as soon as the socket is requested, before the handshake.
    case openBeforeHandshake = "open-before-handshake"
    /// When the receive loop also fails after a missed heartbeat already scheduled a
    /// reconnect, schedules a second one.
    case doubleReconnect = "double-reconnect"
    /// Treats close code 4003 like an ordinary close (rewrites it to 1000).
    case forbiddenRetryable = "forbidden-retryable"

    public var description: String { rawValue }

    /// One step of the wrapped machine.
    public func handle(_ input: Input, machine: inout ConnectionMachine, using random: inout BoundaryRandom) -> [Effect]
    {
        switch self {
        case .correct:
            return machine.handle(input, using: &random)

        case .noGenerationCheck:
            guard let live = machine.liveGeneration else { return machine.handle(input, using: &random) }
            return machine.handle(Self.relabel(input, to: live), using: &random)

        case .noResubscribe:
            let effects = machine.handle(input, using: &random)
            guard case .opened = input else { return effects }
            return effects.filter {
                if case .send(_, .subscribe) = $0 { return false }
                return true
            }

        case .noBackoffReset:
            let before = machine
            let effects = machine.handle(input, using: &random)
            guard effects.contains(.report(.open)) else { return effects }
            machine = ConnectionMachine(
                configuration: machine.configuration, state: machine.state, wanted: machine.wanted,
                foreground: machine.foreground, endpoint: machine.endpoint, generation: machine.generation,
                failures: before.failures, lastDelay: before.lastDelay, topics: machine.topics,
                hasBeenOpen: machine.hasBeenOpen,
                lastSequence: machine.lastSequence, refreshInFlight: machine.refreshInFlight,
                flushesPending: machine.flushesPending, commandsInFlight: machine.commandsInFlight)
            return effects

        case .openBeforeHandshake:
            return machine.handle(input, using: &random).flatMap { effect -> [Effect] in
                if case .openConnection = effect { return [effect, .report(.open)] }
                return [effect]
            }

        case .doubleReconnect:
            let effects = machine.handle(input, using: &random)
            guard case .failed(let g, _) = input, g == machine.generation, machine.liveGeneration == nil,
                case .waiting(reason: "heartbeat missed") = machine.state
            else { return effects }
            // The receive loop's failure handler runs its own reconnect.
            let delay = machine.configuration.backoff.delay(
                afterFailures: machine.failures, previous: machine.lastDelay, using: &random)
            return effects + [.startTimer(.retry, delay), .report(machine.phase)]

        case .forbiddenRetryable:
            guard case .closedByPeer(let g, .forbidden, let reason) = input else {
                return machine.handle(input, using: &random)
            }
            return machine.handle(.closedByPeer(g, code: .normal, reason: reason), using: &random)
        }
    }

    static func relabel(_ input: Input, to g: Generation) -> Input {
        switch input {
        case .opened: .opened(g)
        case .connectFailed(_, let error): .connectFailed(g, error)
        case .received(_, let sequence): .received(g, sequence: sequence)
        case .pong: .pong(g)
        case .closedByPeer(_, let code, let reason): .closedByPeer(g, code: code, reason: reason)
        case .failed(_, let error): .failed(g, error)
        case .sendCompleted(_, let id): .sendCompleted(g, id)
        case .flushed: .flushed(g)
        case .timerFired(.connectTimeout): .timerFired(.connectTimeout(g))
        case .timerFired(.heartbeat): .timerFired(.heartbeat(g))
        case .timerFired(.pongDeadline): .timerFired(.pongDeadline(g))
        default: input
        }
    }
}
