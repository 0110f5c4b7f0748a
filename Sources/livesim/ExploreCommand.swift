import Foundation
import LiveConnectionSimulator

extension Command {
    static let explore = Command(
        name: "explore",
        summary: "run many seeds of swarm-tested simulation in parallel and check every invariant",
        usage: """
            usage: livesim explore [--seeds 0..100] [--duration 1h] [--strategy fifo|random|pct]
                                   [--variant NAME] [--threads N] [--traces DIR] [--overwrite] [--check-determinism]

              --seeds R      seeds to run (default 0..\(ExploreDefaults.seeds)): 0..300 or 0-300 (0 to 299, no quoting
                             needed), "0..<300" (the same), 0...299 (the same), or 300 (0 to 299);
                             1 to 100000000 seeds, never none
              --duration D   \(SimulationUsage.duration); default 1h
              --strategy S   the executor's job order for every seed: fifo, random or pct (default: each seed picks)
              --variant V    the logic to run (default correct): \(SimulationUsage.variants)
              --threads N    worker threads, 1 to 256 (default: every core)
              --traces DIR   where the first failure's shrunk trace is written (default Traces)
              --overwrite    replace a trace of the same name (default: write NAME-2.trace, NAME-3.trace, …)
              --check-determinism
                             run every seed twice with its full log and fail a seed whose two logs
                             differ by one byte (about twice the time)

            Each seed derives its whole run (configuration, which fault kinds are on and how
            often, the schedule, latencies, the job order) from one 64-bit value. Progress goes
            to standard error. Prints the seed and the command that replays each failure.
            """,
        exitCodes: [
            0: "every run held every invariant", 1: "a run violated an invariant (or was not deterministic), or an error",
        ],
        parse: { arguments throws(ArgumentError) in
            let seeds = try arguments.seeds("--seeds", default: 0..<ExploreDefaults.seeds)
            let duration = try arguments.runDuration() ?? .seconds(3600)
            let strategy = try arguments.strategy()
            let variant = try arguments.variant() ?? .correct
            let threads = try arguments.integer("--threads", in: Arguments.threads)
            let traces = try TraceOutput(&arguments, option: "--traces")
            let determinism = try arguments.flag("--check-determinism")
            try arguments.finish()
            return {
                exploreMain(
                    seeds: seeds, duration: duration, strategy: strategy, variant: variant, threads: threads,
                    traces: traces, checksDeterminism: determinism)
            }
        })
}

enum ExploreDefaults {
    /// 100 simulated hours: CI runs `swift run livesim explore` in debug, where this takes
    /// about 25 s on two cores (about 6 s in release).
    static let seeds: UInt64 = 100
}

private func exploreMain(
    seeds: Range<UInt64>, duration: Duration, strategy: StrategyChoice.Kind?, variant: LogicVariant, threads: Int?,
    traces: TraceOutput, checksDeterminism: Bool
) -> Int32 {
    let explorer = Explorer(
        seeds: seeds, generator: ScenarioGenerator(duration: duration, strategy: strategy), variant: variant,
        threads: threads, failureLimit: 10_000, checksDeterminism: checksDeterminism)
    print(
        "livesim explore: \(seeds.count) seeds (\(seeds.lowerBound)..<\(seeds.upperBound)) × \(formatDuration(duration)), "
            + "strategy \(strategy?.rawValue ?? "per seed"), variant \(variant.name), \(explorer.threads) threads"
            + (checksDeterminism ? ", each seed twice (determinism)" : ""))
    let started = ContinuousClock.now
    let progress = ProgressLine("explored", unit: "seeds", total: seeds.count)
    let summary = explorer.run { finished, failed in progress.update(finished, "\(failed) failing") }
    progress.finish(summary.runs, "\(summary.failureCount) failing")
    let wall = (ContinuousClock.now - started).seconds
    printSummary(summary, wallSeconds: wall, threads: explorer.threads, checksDeterminism: checksDeterminism)
    guard !summary.passed else { return 0 }
    printFailures(summary, duration: duration, strategy: strategy, variant: variant)
    saveShrunkCounterexample(of: summary, generator: explorer.generator, variant: variant, output: traces)
    return 1
}

private func printSummary(_ summary: ExplorationSummary, wallSeconds: Double, threads: Int, checksDeterminism: Bool) {
    func row(_ label: String, _ value: String) {
        print(label.padding(toLength: 34, withPad: " ", startingAt: 0) + value)
    }
    let simulated = summary.simulatedTime.seconds
    print("")
    row("runs", "\(summary.runs)")
    row("simulated time", String(format: "%.1f h (%.0f s)", simulated / 3600, simulated))
    row("wall time", String(format: "%.2f s", wallSeconds))
    if wallSeconds > 0 {
        row("simulated / wall", String(format: "%.0f× (%.0f× per thread)", simulated / wallSeconds, simulated / wallSeconds / Double(threads)))
        row("seeds per second", String(format: "%.1f", Double(summary.runs) / wallSeconds))
    }
    row("manager inputs", "\(summary.inputs)")
    row("executor jobs", "\(summary.jobsRun)")
    row("invariant checks", "\(summary.invariantChecks)")
    print("\nfaults injected, by kind (actions applied)")
    for kind in FaultKind.allCases {
        row("  \(kind.rawValue)", "\(summary.faults[kind])")
    }
    print("\nviolations, by invariant (runs)")
    for (invariant, runs) in summary.violatingRuns {
        row("  \(invariant.name)", "\(runs)")
    }
    if summary.deadlocks > 0 { row("  simulation deadlocked", "\(summary.deadlocks)") }
    if checksDeterminism { row("  two runs differed", "\(summary.divergentRuns)") }
}

private func printFailures(_ summary: ExplorationSummary, duration: Duration, strategy: StrategyChoice.Kind?, variant: LogicVariant) {
    print("\nfailing seeds, by invariant (the first 20 of each)")
    for invariant in Invariant.all {
        let seeds = summary.failures.filter { $0.violations.contains { $0.invariant == invariant } }.map(\.seed)
        guard !seeds.isEmpty else { continue }
        let shown = seeds.prefix(20).map(String.init).joined(separator: " ")
        print("  \(invariant.name): \(shown)\(seeds.count > 20 ? " …" : "")")
    }
    print("\n\(summary.failureCount) failing run(s); the first \(min(summary.failures.count, 10)):")
    for failure in summary.failures.prefix(10) {
        print("seed \(failure.seed):")
        if failure.deadlocked { print("  the simulation deadlocked") }
        if let divergence = failure.divergence { print("  not deterministic: \(divergence)") }
        for violation in failure.violations { print("  \(violation)") }
        print("  replay: \(replayCommand(seed: failure.seed, duration: duration, strategy: strategy, variant: variant))")
    }
}

/// The one-line command that re-runs a seed exactly (the options that shaped its scenario included).
func replayCommand(seed: UInt64, duration: Duration, strategy: StrategyChoice.Kind?, variant: LogicVariant) -> String {
    var words = ["swift run livesim replay --seed \(seed)"]
    if variant != .correct { words.append("--variant \(variant.name)") }
    if duration != .seconds(3600) { words.append("--duration \(formatDuration(duration))") }
    if let strategy { words.append("--strategy \(strategy.rawValue)") }
    return words.joined(separator: " ")
}
