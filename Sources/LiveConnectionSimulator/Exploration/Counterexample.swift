import LiveConnection
public import LiveConnectionRules
public import LiveConnectionTraces

/// A failing simulated run shrunk to a small schedule that fails the same way, ready to be
/// saved as a trace in `Traces/`.
///
/// ```swift
/// let scenario = ScenarioGenerator().scenario(seed: 12)
/// let result = SimulationRun(scenario, variant: broken).run()
/// if let violation = result.violations.first {
///     let counterexample = SimulationCounterexample.shrink(scenario, variant: broken, invariant: violation.rule)
///     try TraceLibrary.package()!.write(counterexample.trace, named: counterexample.fileName)
/// }
/// ```
///
/// The predicate the shrinker keeps is "this candidate still violates *the same
/// invariant*": shrinking towards any failure would slide to a different, shallower bug.
/// Each candidate is a full simulation run without a log; the final one is re-run with
/// its log, which becomes the trace's observed section.
///
/// One of the three counterexamples the tools save, each named for where it was found and
/// each with a ``trace`` and a ``fileName``: `SimulationCounterexample` (a simulated run
/// judged by the invariants, `livesim explore`), `WireCounterexample` (a client judged from
/// the wire) and `CheckerCounterexample` (a model checker path written as a trace, `livesim
/// check`). Their parts are `Counterexample…`: the checker's raw `CounterexamplePath` and
/// the `CounterexampleReplay` of a written one.
public struct SimulationCounterexample: Sendable {
    /// The scenario as it failed first.
    public var original: Scenario
    /// The smallest scenario found that still violates ``invariant``.
    public var shrunk: Scenario
    public var variant: LogicVariant
    public var invariant: Rule
    /// The shrunk run, with its log.
    public var result: RunResult
    /// What shrinking cost.
    public var shrinking: ScheduleShrinker.Result

    /// The trace to save: the shrunk scenario, `expect: violation <invariant>`, and the run's log.
    public var trace: Trace {
        Trace(
            scenario: shrunk, generator: SimulationCounterexample.generator(for: original), variant: variant,
            expectation: .violation(invariant.name), observed: result.observedEvents)
    }

    /// `<invariant>-seed<N>.trace`.
    public var fileName: String { TraceLibrary.fileName(invariant: invariant.name, seed: original.seed) }

    /// The generator line of a shrunk trace: the swarm generator that made the original
    /// schedule, since the shrunk schedule is a subset of it with simpler arguments.
    static func generator(for scenario: Scenario) -> GeneratorID { ScenarioGenerator.traceIdentity }

    /// Shrinks a scenario that violates `invariant` under `variant`.
    ///
    /// - Parameters:
    ///   - scenario: the failing scenario.
    ///   - variant: the manager variant it fails under.
    ///   - invariant: the invariant it violates; a smaller scenario must violate the same one.
    ///   - maximumAttempts: at most this many simulation runs while shrinking.
    public static func shrink(
        _ scenario: Scenario, variant: LogicVariant = .correct, invariant: Rule, maximumAttempts: Int = 2_000
    ) -> SimulationCounterexample {
        func stillFails(_ schedule: [ScheduledAction]) -> Bool {
            var candidate = scenario
            candidate.schedule = schedule
            let result = SimulationRun(candidate, variant: variant, recordsLog: false).run()
            return result.violations.contains { $0.rule == invariant }
        }
        let shrinking = ScheduleShrinker(maximumAttempts: maximumAttempts).shrink(
            scenario.schedule, stillFails: stillFails)
        var shrunk = scenario
        shrunk.schedule = shrinking.schedule
        let result = SimulationRun(shrunk, variant: variant).run()
        return SimulationCounterexample(
            original: scenario, shrunk: shrunk, variant: variant, invariant: invariant, result: result,
            shrinking: shrinking)
    }
}

extension ScenarioGenerator {
    /// The `generator:` line of traces whose schedule this generator made. Bump the version
    /// whenever a seed would generate a different scenario.
    /// (2: stale callbacks draw how long their connection's close lingers.)
    /// (3: a quarter of the seeds give up after 1–6 attempts, a quarter fetch credentials
    /// before every connect; half the app's disconnects carry their own close code and reason.)
    public static let traceIdentity = GeneratorID(name: "swarm", version: 3)
}
