import Foundation
import LiveConnectionSimulator

/// What `livesim explore` does with its first failing seed: shrink it (by the invariant it
/// violated first) and save the trace, so the report ends with a minimal, replayable file.
///
/// Only the first failure is shrunk: each shrinking attempt is a whole run, and the first
/// failure is usually enough to start debugging; `livesim shrink --seed N` does any other.
func saveShrunkCounterexample(
    of summary: ExplorationSummary, generator: ScenarioGenerator, variant: LogicVariant, output: TraceOutput
) {
    guard let failure = summary.failures.first, let violation = failure.violations.first else { return }
    let scenario = generator.scenario(seed: failure.seed)
    let counterexample = SimulationCounterexample.shrink(scenario, variant: variant, invariant: violation.rule)
    do {
        let path = try output.write(counterexample.trace, named: counterexample.fileName)
        print(
            "\nshrunk seed \(failure.seed) (\(violation.rule.name)) from \(scenario.schedule.count) to "
                + "\(counterexample.shrunk.schedule.count) actions in \(counterexample.shrinking.attempts) runs: \(path)"
        )
        print("  replay: swift run livesim replay \(path)")
    } catch {
        standardError("livesim explore: could not write the shrunk trace to \(output.directory): \(describe(error))")
    }
}
