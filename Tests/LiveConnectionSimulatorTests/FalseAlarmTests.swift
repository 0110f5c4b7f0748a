import LiveConnection
import LiveConnectionSimulator
import TestScheduling
import Testing

/// A red run must mean a bug. These are runs the manager handled correctly that the kit
/// once called violations.
@Suite("False alarms", .computeBound)
struct FalseAlarmTests {
    /// Seed 1188 shrank to two actions: `connect`, then `stale close` while only one
    /// generation existed. The close was armed on the live socket; the harness's teardown
    /// closed that socket at the run's last instant, the "late" close reached the live
    /// generation, the manager rightly went to waiting, and eventually-open fired.
    @Test("a stale close armed on the only generation is not turned into a live close by the teardown")
    func staleCloseOnTheOnlyGeneration() {
        var scenario = ScenarioGenerator(duration: .seconds(120)).scenario(seed: 1188)
        scenario.schedule = [
            ScheduledAction(at: .zero, .connect(endpoint: 0)),
            ScheduledAction(at: .seconds(60), .deliverStale(.close)),
        ]
        let result = SimulationRun(scenario).run()
        #expect(result.violations.isEmpty, "\(result.violations)")
        #expect(!result.log.contains { $0.contains("late close") }, "the teardown delivered the armed close")
        #expect(result.log.contains { $0.contains("phase open") })
    }

    /// The nine seeds of the first 10,000 that failed eventually-open at their last instant.
    @Test(
        "the seeds that once failed at their last instant pass",
        arguments: [1188, 2588, 3849, 3878, 4236, 4373, 4812, 5990, 7211] as [UInt64])
    func formerFalseAlarms(seed: UInt64) {
        let result = SimulationRun(ScenarioGenerator(duration: .seconds(3600)).scenario(seed: seed), recordsLog: false)
            .run()
        #expect(result.violations.isEmpty, "seed \(seed): \(result.violations)")
        #expect(!result.deadlocked)
    }

    /// The end of the run is judged once, before the teardown: a manager that gives up
    /// after a reset (nothing armed, so no later event would trigger a check) is caught
    /// only by that last judgement.
    @Test("the last instant is still judged")
    func lastInstantJudged() throws {
        var scenario = ScenarioGenerator(duration: .seconds(300)).scenario(seed: 0)
        scenario.schedule = [
            ScheduledAction(at: .zero, .connect(endpoint: 0)),
            ScheduledAction(at: .seconds(10), .resetConnection),
        ]
        let result = SimulationRun(scenario, variant: try #require(LogicVariant.named("gives-up"))).run()
        let violation = try #require(result.violations.first, "gives-up passed")
        #expect(violation.rule == .eventuallyOpen)
        #expect(violation.at == .seconds(300))
    }
}
