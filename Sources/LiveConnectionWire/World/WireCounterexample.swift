public import LiveConnectionRules
public import LiveConnectionTraces

/// A failing wire run shrunk to a small schedule that breaks the same rule, ready to be
/// saved as a trace.
///
/// ```swift
/// let scenario = WireScenarioGenerator().scenario(seed: 12)
/// let counterexample = WireCounterexample.shrink(scenario, kind: kind, rule: .wireOneSocket)
/// try TraceLibrary(directory: url).write(counterexample.trace, named: counterexample.fileName)
/// ```
///
/// The shrinker is the simulator's (``ScheduleShrinker``: ddmin, simpler arguments,
/// earlier times); each candidate is a whole wire run; the shrunk run is re-run with its
/// wire log, which becomes the trace's observed section: what the server saw.
///
/// The wire's member of the counterexample family (each named for where it was found, each
/// with a `trace` and a `fileName`): `SimulationCounterexample` is its twin for the
/// manager judged by the simulator's invariants, `CheckerCounterexample` a model checker
/// path written as a trace.
public struct WireCounterexample: Sendable {
    public var original: WireScenario
    public var shrunk: WireScenario
    public var rule: Rule
    public var client: String
    /// What the client claimed (the trace's `claims:` line).
    public var claims: String
    /// The shrunk run, with its wire log.
    public var result: WireRunResult
    public var shrinking: ScheduleShrinker.Result

    /// `<client>-<rule>-seed<N>.trace`.
    public var fileName: String {
        TraceLibrary.fileName(invariant: rule.name, seed: original.base.seed, variant: client)
    }

    /// The trace: the shrunk scenario, the client and its claims, `expect: violation <rule>`,
    /// and what the server saw.
    public var trace: Trace {
        var trace = Trace(
            wire: shrunk, generator: WireScenarioGenerator.traceIdentity, client: client,
            expectation: .violation(rule.name), observed: result.observedEvents)
        trace.claims = claims
        return trace
    }

    public static func shrink(
        _ scenario: WireScenario, kind: ClientKind, rule: Rule, maximumAttempts: Int = 400
    ) -> WireCounterexample {
        func stillFails(_ schedule: [ScheduledAction]) -> Bool {
            var candidate = scenario
            candidate.base.schedule = schedule
            return WireRun(candidate, kind: kind, recordsLog: false).run().violations.contains { $0.rule == rule }
        }
        let shrinking = ScheduleShrinker(maximumAttempts: maximumAttempts).shrink(
            scenario.base.schedule, stillFails: stillFails)
        var shrunk = scenario
        shrunk.base.schedule = shrinking.schedule
        let result = WireRun(shrunk, kind: kind).run()
        return WireCounterexample(
            original: scenario, shrunk: shrunk, rule: rule, client: kind.name,
            claims: kind.claims.traceDescription, result: result, shrinking: shrinking)
    }
}
