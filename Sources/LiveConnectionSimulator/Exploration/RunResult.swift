public import LiveConnectionRules
public import LiveConnectionTraces

/// What one ``SimulationRun`` produced: its event log, what it injected, what it checked
/// and what it found.
///
/// ```swift
/// let result = SimulationRun(scenario).run()
/// print(result.log.joined(separator: "\n"))       // one line per event, virtual time first
/// for violation in result.violations { print(violation) }
/// ```
public struct RunResult: Sendable {
    /// The scenario's seed.
    public var seed: UInt64
    /// The logic variant that ran.
    public var variant: String
    /// One line per event with its virtual time (empty when the run did not record a log).
    /// The same scenario and variant give the same lines on the same build.
    public var log: [String]
    /// The first violation of each invariant, in the order found.
    public var violations: [Violation]
    /// Violations per invariant, in `Rule.invariants` order.
    public var violationCounts: [(invariant: Rule, count: Int)]
    /// Invariant evaluations.
    public var invariantChecks: Int
    /// The run's retry delays as `backoff-distribution` pools them (judged over many runs).
    public var delayPool = BackoffDelayPool()
    /// External actions applied, by kind.
    public var faults: FaultCounts
    /// Inputs the manager handled.
    public var inputs: Int
    /// Virtual time the run covered.
    public var simulatedTime: Duration
    /// Executor jobs run.
    public var jobsRun: Int
    /// What the network did.
    public var network: NetworkStatistics
    /// The simulation ended with nothing runnable while the run was unfinished (a bug in
    /// the simulated program or the harness, reported as a failure).
    public var deadlocked: Bool

    /// No violation and no deadlock.
    public var passed: Bool { violations.isEmpty && !deadlocked }
}
