import Foundation
import Testing

@testable import LiveConnection

/// Drives one `ConnectionMachine` the way a shell would, so a test reads like a row of a
/// transition table: an input, the effects it produced, the state it left.
///
/// It keeps a toy timer wheel (virtual time in `Duration`, armed timers by deadline and
/// arming order) so heartbeat and backoff tests can let time pass instead of firing
/// timers by hand, and it records every effect in `log`.
struct MachineDriver {
    var machine: ConnectionMachine
    var random: Xoshiro256StarStar
    /// Every effect, in order, since the driver was made.
    var log: [Effect] = []
    /// Virtual time: moves only in `advance(by:)`.
    var now: Duration = .zero
    /// Armed timers, in arming order (an array, so ties resolve deterministically).
    private(set) var armed: [(timer: TimerID, deadline: Duration)] = []

    init(_ configuration: ConnectionConfiguration = ConnectionConfiguration(), seed: UInt64 = 1) {
        machine = ConnectionMachine(configuration: configuration)
        random = Xoshiro256StarStar(seed: seed)
    }

    var state: ConnectionMachine.State { machine.state }
    var phase: Phase { machine.phase }

    /// The live generation; a test that calls this expects one.
    var live: Generation {
        get throws { try #require(machine.liveGeneration, "no live generation in state \(machine.state)") }
    }

    /// Handles one input and applies the timer effects to the toy wheel.
    @discardableResult
    mutating func handle(_ input: Input) -> [Effect] {
        let effects = machine.handle(input, using: &random)
        log += effects
        for effect in effects {
            switch effect {
            case .startTimer(let timer, let delay):
                armed.removeAll { $0.timer == timer }
                armed.append((timer, now + delay))
            case .cancelTimer(let timer):
                armed.removeAll { $0.timer == timer }
            default:
                break
            }
        }
        return effects
    }

    func isArmed(_ timer: TimerID) -> Bool { armed.contains { $0.timer == timer } }

    /// The deadline of an armed timer.
    func deadline(of timer: TimerID) -> Duration? { armed.first { $0.timer == timer }?.deadline }

    /// Fires an armed timer now, as the shell would when it expires.
    @discardableResult
    mutating func fire(_ timer: TimerID) throws -> [Effect] {
        try #require(isArmed(timer), "\(timer) is not armed; armed: \(armed.map(\.timer))")
        armed.removeAll { $0.timer == timer }
        return handle(.timerFired(timer))
    }

    /// Lets `duration` of virtual time pass, firing every timer that comes due, earliest
    /// first. `beforeEach` runs at each timer's deadline before it fires (a peer's answer).
    @discardableResult
    mutating func advance(by duration: Duration, beforeEach: (inout MachineDriver) -> Void = { _ in }) -> [Effect] {
        let end = now + duration
        var effects: [Effect] = []
        while let next = armed.enumerated().min(by: {
            ($0.element.deadline, $0.offset) < ($1.element.deadline, $1.offset)
        }),
            next.element.deadline <= end
        {
            now = next.element.deadline
            beforeEach(&self)
            // The peer's answer may have cancelled or re-armed the timer.
            guard let index = armed.firstIndex(where: { $0.timer == next.element.timer && $0.deadline <= now }) else {
                continue
            }
            let timer = armed.remove(at: index).timer
            effects += handle(.timerFired(timer))
        }
        now = end
        return effects
    }

    /// Moves time to the earliest armed timer and fires it.
    @discardableResult
    mutating func fireNext() throws -> [Effect] {
        let next = try #require(
            armed.enumerated().min { ($0.element.deadline, $0.offset) < ($1.element.deadline, $1.offset) },
            "no timer armed")
        now = next.element.deadline
        armed.remove(at: next.offset)
        return handle(.timerFired(next.element.timer))
    }

    // MARK: Scripted steps

    /// `connect(to:)` and complete the handshake: the machine ends open on a new generation.
    @discardableResult
    mutating func connectAndOpen(to endpoint: Endpoint = .primary) throws -> [Effect] {
        handle(.connect(endpoint))
        return open(try live)
    }

    /// The handshake of `g` completes and the transport takes the resubscriptions.
    @discardableResult
    mutating func open(_ g: Generation) -> [Effect] {
        handle(.opened(g)) + handle(.flushed(g))
    }

    /// Drops the live connection with a reset: the machine ends waiting.
    @discardableResult
    mutating func reset() throws -> [Effect] {
        handle(.failed(try live, .reset(errno: "ECONNRESET")))
    }

    /// Fails the live attempt `count` times, firing the retry timer after each but the last.
    mutating func failAttempts(_ count: Int) throws {
        for index in 0..<count {
            handle(.connectFailed(try live, .refused))
            if index < count - 1 { try fire(.retry) }
        }
    }
}

extension Endpoint {
    static let primary = Endpoint(url: URL(string: "wss://primary.example/live")!)
    static let secondary = Endpoint(url: URL(string: "wss://secondary.example/live")!)
}

/// A random source that returns one word forever: `.max` makes every uniform draw its
/// range's top, `1` its bottom, so a test can pin a jittered delay to a bound.
struct ConstantWords: RandomSource {
    var word: UInt64
    mutating func nextWord() -> UInt64 { word }
}

extension Array where Element == Effect {
    /// The retry delays these effects armed, in order.
    var retryDelays: [Duration] {
        compactMap { if case .startTimer(.retry, let delay) = $0 { delay } else { nil } }
    }
    /// The phases these effects reported, in order.
    var phases: [Phase] {
        compactMap { if case .report(let phase) = $0 { phase } else { nil } }
    }
    var opened: [Generation] {
        compactMap { if case .openConnection(let g, _) = $0 { g } else { nil } }
    }
    var closed: [Generation] {
        compactMap { if case .closeConnection(let g, _, _) = $0 { g } else { nil } }
    }
    var completions: [CommandID: [CommandOutcome]] {
        var result: [CommandID: [CommandOutcome]] = [:]
        for case .completeCommand(let id, let outcome) in self { result[id, default: []].append(outcome) }
        return result
    }
}

extension ConnectionConfiguration {
    /// A configuration with the given changes applied.
    static func with(_ change: (inout ConnectionConfiguration) -> Void) -> ConnectionConfiguration {
        var configuration = ConnectionConfiguration()
        change(&configuration)
        return configuration
    }
}

extension Message {
    /// The data message the machine tests hand in: the machine decides on a `received` input's
    /// sequence number alone and passes the message on, untouched, in `deliverMessage`.
    static let payload = Message.text("m")
}
