import LiveConnection
import LiveConnectionSimulator
import TestScheduling
import Testing

/// The shrinker wired to real runs: each planted bug is found, shrunk, and the saved trace
/// reproduces it.
@Suite("Counterexamples", .computeBound)
struct CounterexampleTests {
    /// The first seed whose generated scenario makes `variant` violate its invariant.
    static func firstFailure(_ variant: LogicVariant, in seeds: Range<UInt64>) -> (Scenario, Rule)? {
        guard let invariant = variant.breaks else { return nil }
        let generator = ScenarioGenerator(duration: .seconds(600))
        for seed in seeds {
            let scenario = generator.scenario(seed: seed)
            let result = SimulationRun(scenario, variant: variant, recordsLog: false).run()
            if result.violations.contains(where: { $0.rule == invariant }) { return (scenario, invariant) }
        }
        return nil
    }

    @Test(
        "a planted bug is found, shrunk to at most 10 actions, and its trace reproduces it",
        // All three in CI's release step, the first in a debug run (``TestScale/shrunkPlantedBugs``):
        // LivesimTests' `shrink` and `exploreWritesShrunkTrace` shrink the other two.
        arguments: TestScale.shrunkPlantedBugs.leading([
            "never-resets-backoff", "ignores-generations", "skips-resubscribe",
        ]))
    func plantedBug(name: String) throws {
        let variant = try #require(LogicVariant.named(name))
        let (scenario, invariant) = try #require(Self.firstFailure(variant, in: 0..<50))
        let counterexample = SimulationCounterexample.shrink(scenario, variant: variant, invariant: invariant)
        #expect(counterexample.shrunk.schedule.count <= 10, "\(counterexample.trace.encode())")
        #expect(counterexample.shrunk.schedule.count < scenario.schedule.count)
        #expect(!counterexample.shrinking.budgetExhausted)
        #expect(counterexample.result.violations.contains { $0.rule == invariant })

        // What is saved is what replays: parse the text, run it, same violation.
        let trace = try Trace(parsing: counterexample.trace.encode())
        #expect(trace.expectation == .violation(invariant.name))
        #expect(trace.variant == name)
        let replayed = SimulationRun(trace.scenario, variant: try trace.logicVariant()).run()
        #expect(replayed.satisfies(try #require(trace.expectation)))
        #expect(replayed.observedEvents == trace.observed)
        // And the correct machine passes the same schedule.
        let fixed = SimulationRun(trace.scenario, variant: .correct, recordsLog: false).run()
        #expect(!fixed.violations.contains { $0.rule == invariant }, "\(fixed.violations)")
    }

    @Test(
        "the trace of a scenario reads back as the same scenario (except the swarm description)",
        arguments: 0..<10 as Range<UInt64>)
    func scenarioRoundTrip(seed: UInt64) throws {
        let scenario = ScenarioGenerator(duration: .seconds(600)).scenario(seed: seed)
        let trace = try Trace(parsing: Trace(scenario: scenario, generator: ScenarioGenerator.traceIdentity).encode())
        var expected = scenario
        expected.faults = FaultMix(rates: [])
        #expect(trace.scenario == expected)
        #expect(try trace.logicVariant() == .correct)
    }

    @Test("run log lines become observed events with their virtual times")
    func runLogLines() {
        #expect(ObservedEvent(runLogLine: "1500ms phase open") == ObservedEvent(at: .milliseconds(1500), "phase open"))
        #expect(ObservedEvent(runLogLine: "0.25ms input x") == ObservedEvent(at: .microseconds(250), "input x"))
        #expect(ObservedEvent(runLogLine: "end") == nil)
        #expect(ObservedEvent(runLogLine: "12 s x") == nil)
    }

    @Test("a trace naming an unknown variant cannot run, and says why; any PCT step count runs as written")
    func replayErrors() throws {
        var trace = Trace(
            scenario: Scenario(
                seed: 1, configuration: .init(), strategy: .fifo, duration: .seconds(1), schedule: [], managerSeed: 1),
            generator: .handWritten)
        trace.variant = "nope"
        #expect(throws: TraceReplayError.self) { try trace.logicVariant() }
        trace.variant = nil
        trace.scenario.strategy = .pct(seed: 1, depth: 2, expectedSteps: 7)
        let parsed = try Trace(parsing: trace.encode())
        #expect(parsed.scenario.strategy == .pct(seed: 1, depth: 2, expectedSteps: 7))
        #expect(try parsed.logicVariant() == .correct)
    }
}
