/// What a ``Simulation`` run ended with, and what it cost in virtual time and jobs.
///
/// ```swift
/// let result = Simulation.run(strategy: .fifo, clock: clock) { try await work() }
/// let value = try result.get()        // the body's value, or its error, or .deadlocked
/// print(result.finalTime, result.jobsRun)
/// ```
public struct SimulationResult<Value: Sendable>: Sendable {
    /// How the run ended.
    public enum Outcome: Sendable {
        /// The body returned or threw.
        case finished(Result<Value, any Error>)
        /// No job was ready and no sleeper could wake, yet the body had not finished:
        /// every task waits for something nobody will do (a continuation never resumed,
        /// a stream nobody feeds, or, after the time limit, a sleep past the limit).
        case deadlocked
    }

    /// How the run ended.
    public let outcome: Outcome
    /// Virtual time when the run ended.
    public let finalTime: VirtualClock.Instant
    /// Jobs run during this simulation.
    public let jobsRun: Int
    /// Picks among two or more ready jobs during this simulation.
    public let schedulingChoices: Int
    /// Whether virtual time reached the `until:` limit (and the body was cancelled).
    public let timeLimitReached: Bool
    /// Sleepers still parked on the clock when the run ended.
    public let pendingSleepers: Int

    /// Whether the body returned or threw (as opposed to deadlocking).
    public var bodyFinished: Bool {
        if case .finished = outcome { return true }
        return false
    }

    /// The body's value; rethrows the body's error; throws ``SimulationError/deadlocked(at:pendingSleepers:)``.
    public func get() throws -> Value {
        switch outcome {
        case .finished(let result): try result.get()
        case .deadlocked: throw SimulationError.deadlocked(at: finalTime, pendingSleepers: pendingSleepers)
        }
    }
}

/// Why a simulation produced no value of its own.
public enum SimulationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Nothing could run and the body had not finished.
    case deadlocked(at: VirtualClock.Instant, pendingSleepers: Int)

    public var description: String {
        switch self {
        case .deadlocked(let instant, let sleepers):
            "simulation deadlocked at \(instant): no job ready, \(sleepers) sleeper(s) that cannot wake, body unfinished"
        }
    }
}
