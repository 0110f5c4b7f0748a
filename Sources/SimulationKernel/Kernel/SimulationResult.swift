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
        /// The job limit was reached with the body unfinished: a livelock, or a limit
        /// too small for the work.
        case exceededJobLimit
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

    /// Whether the body returned or threw (as opposed to deadlocking or exceeding the job limit).
    public var bodyFinished: Bool {
        if case .finished = outcome { return true }
        return false
    }

    /// The body's value; rethrows the body's error; throws a ``SimulationError`` if the
    /// body never finished.
    public func get() throws -> Value {
        switch outcome {
        case .finished(let result): try result.get()
        case .deadlocked: throw SimulationError.deadlocked(at: finalTime, pendingSleepers: pendingSleepers)
        case .exceededJobLimit: throw SimulationError.exceededJobLimit(jobsRun: jobsRun, at: finalTime)
        }
    }
}

/// Why a simulation produced no value of its own.
public enum SimulationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Nothing could run and the body had not finished.
    case deadlocked(at: VirtualClock.Instant, pendingSleepers: Int)
    /// The job limit ran out before the body finished.
    case exceededJobLimit(jobsRun: Int, at: VirtualClock.Instant)

    /// What usually makes a simulation wait for nothing: work that left the simulator.
    public static let likelyCause =
        "Likely cause: something waits for work outside the simulation — a Task.sleep or a real clock "
        + "(ContinuousClock, SuspendingClock; sleep on the simulation's VirtualClock instead), a Task {} or "
        + "Task.detached (use async let or a task group, so the work runs on the simulator), or a continuation "
        + "or stream nobody resumes."

    public var description: String {
        switch self {
        case .exceededJobLimit(let jobs, let instant):
            "simulation ran \(jobs) jobs without finishing, at \(instant): a livelock, or the job limit is too small"
        case .deadlocked(let instant, let sleepers):
            "simulation deadlocked at \(instant): no job ready, \(sleepers) sleeper(s) that cannot wake, body unfinished. "
                + Self.likelyCause
        }
    }
}
