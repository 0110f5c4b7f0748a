import LiveConnection
import LiveConnectionSimulator
import Testing

/// A seed reproduces the same bytes on the same build: run twice, trace twice, compare.
@Suite("Trace determinism")
struct TraceDeterminismTests {
    static func trace(seed: UInt64, variant: LogicVariant) -> String {
        let scenario = ScenarioGenerator(duration: .seconds(300)).scenario(seed: seed)
        let result = SimulationRun(scenario, variant: variant).run()
        return Trace(
            scenario: scenario, generator: ScenarioGenerator.traceIdentity, variant: variant,
            observed: result.observedEvents
        ).encode()
    }

    @Test(
        "each seed run twice gives identical trace bytes, observed section included", arguments: 0..<16 as Range<UInt64>
    )
    func sameSeedSameBytes(seed: UInt64) {
        let first = Self.trace(seed: seed, variant: .correct)
        let second = Self.trace(seed: seed, variant: .correct)
        #expect(
            first == second,
            "\(TraceDivergence(between: first, and: second)?.render(leftName: "run 1", rightName: "run 2") ?? "")")
    }

    @Test("broken variants are deterministic too", arguments: LogicVariant.all.map(\.name))
    func variants(name: String) throws {
        let variant = try #require(LogicVariant.named(name))
        #expect(Self.trace(seed: 5, variant: variant) == Self.trace(seed: 5, variant: variant))
    }

    @Test("a trace replays to the same observed lines as the run it was made from", arguments: [1, 2, 3] as [UInt64])
    func replayMatchesRecording(seed: UInt64) throws {
        let recorded = try Trace(parsing: Self.trace(seed: seed, variant: .correct))
        let replayed = SimulationRun(recorded.scenario, variant: try recorded.logicVariant()).run()
        #expect(replayed.observedEvents == recorded.observed)
    }

    @Test("different seeds give different runs")
    func seedsDiffer() {
        #expect(Self.trace(seed: 1, variant: .correct) != Self.trace(seed: 2, variant: .correct))
    }
}
