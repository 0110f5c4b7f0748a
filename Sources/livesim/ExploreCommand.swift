import Foundation
import LiveConnectionSimulator
import Synchronization

extension Command {
    static let explore = Command(
        name: "explore",
        summary: "run many seeds of swarm-tested simulation in parallel and check every invariant",
        usage: """
            usage: livesim explore [--seeds 0..<10000] [--duration 1h] [--strategy fifo|random|pct]
                                   [--variant NAME] [--threads N] [--traces DIR] [--check-determinism]

              --seeds      seeds to run: A..<B, A...B, or N (meaning 0..<N)       default 0..<\(ExploreDefaults.seeds)
              --duration   virtual time per run: 500ms, 90s, 10m, 1h              default 1h
              --strategy   the executor's job order for every seed                default: each seed picks
              --variant    the logic to run: correct, or a deliberately broken one default correct
                           (\(LogicVariant.all.map { $0.name }.joined(separator: ", ")))
              --threads    worker threads                                         default: every core
              --traces     where the first failure's shrunk trace is written      default Traces
              --check-determinism
                           run every seed twice with its full log and fail a seed whose
                           two logs differ by one byte (about twice the time)

            Each seed derives its whole run (configuration, which fault kinds are on and how
            often, the schedule, latencies, the job order) from one 64-bit value. Exits 1 if any
            run violates an invariant, printing the seed and the command that replays it.
            """,
        run: { arguments in
            let seeds = try arguments.option("--seeds", parse: parseSeeds) ?? 0..<ExploreDefaults.seeds
            let duration = try arguments.option("--duration", parse: parseDuration) ?? .seconds(3600)
            let strategy = try arguments.option("--strategy", parse: { StrategyChoice.Kind(rawValue: $0) })
            let variant = try arguments.option("--variant", parse: { LogicVariant.named($0) }) ?? .correct
            let threads = try arguments.option("--threads", parse: { Int($0).flatMap { $0 > 0 ? $0 : nil } })
            let traces = try arguments.option("--traces") ?? "Traces"
            let determinism = arguments.flag("--check-determinism")
            try arguments.finish()
            return exploreMain(
                seeds: seeds, duration: duration, strategy: strategy, variant: variant, threads: threads, traces: traces,
                checksDeterminism: determinism)
        })
}

enum ExploreDefaults {
    /// 100 simulated hours: CI runs `swift run livesim explore` in debug, where this takes
    /// about 25 s on two cores (about 6 s in release).
    static let seeds: UInt64 = 100
}

private func exploreMain(
    seeds: Range<UInt64>, duration: Duration, strategy: StrategyChoice.Kind?, variant: LogicVariant, threads: Int?,
    traces: String, checksDeterminism: Bool
) -> Int32 {
    let explorer = Explorer(
        seeds: seeds, generator: ScenarioGenerator(duration: duration, strategy: strategy), variant: variant,
        threads: threads, failureLimit: 10_000, checksDeterminism: checksDeterminism)
    print(
        "livesim explore: \(seeds.count) seeds (\(seeds.lowerBound)..<\(seeds.upperBound)) × \(formatDuration(duration)), "
            + "strategy \(strategy?.rawValue ?? "per seed"), variant \(variant.name), \(explorer.threads) threads"
            + (checksDeterminism ? ", each seed twice (determinism)" : ""))
    let started = ContinuousClock.now
    let lastPrint = Mutex(ContinuousClock.now)
    let total = seeds.count
    let summary = explorer.run { finished, failed in
        // Wall time is for the progress line only; nothing simulated reads it.
        let now = ContinuousClock.now
        let due = lastPrint.withLock { last in
            guard finished == total || now - last >= .milliseconds(200) else { return false }
            last = now
            return true
        }
        guard due else { return }
        let elapsed = (now - started).seconds
        let text = "\rexplored \(finished)/\(total) seeds, \(failed) failing, \(String(format: "%.1f", elapsed)) s"
        FileHandle.standardError.write(Data(text.utf8))
    }
    FileHandle.standardError.write(Data("\n".utf8))
    let wall = (ContinuousClock.now - started).seconds
    printSummary(summary, wallSeconds: wall, threads: explorer.threads, checksDeterminism: checksDeterminism)
    guard !summary.passed else { return 0 }
    printFailures(summary, duration: duration, strategy: strategy, variant: variant)
    saveShrunkCounterexample(of: summary, generator: explorer.generator, variant: variant, directory: traces)
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

/// "A..<B", "A...B" or "N" (0..<N).
func parseSeeds(_ text: String) -> Range<UInt64>? {
    if let count = UInt64(text) { return 0..<count }
    if let split = text.range(of: "..<"), let low = UInt64(text[..<split.lowerBound]),
        let high = UInt64(text[split.upperBound...]), low <= high
    {
        return low..<high
    }
    if let split = text.range(of: "..."), let low = UInt64(text[..<split.lowerBound]),
        let high = UInt64(text[split.upperBound...]), low <= high, high < .max
    {
        return low..<(high + 1)
    }
    return nil
}

/// "500ms", "90s", "10m", "1h" (whole numbers).
func parseDuration(_ text: String) -> Duration? {
    let units: [(suffix: String, seconds: Int64, milliseconds: Bool)] = [
        ("ms", 0, true), ("s", 1, false), ("m", 60, false), ("h", 3600, false),
    ]
    for unit in units where text.hasSuffix(unit.suffix) {
        guard let value = Int64(text.dropLast(unit.suffix.count)), value > 0 else { return nil }
        return unit.milliseconds ? .milliseconds(value) : .seconds(value * unit.seconds)
    }
    return nil
}

/// "1h", "10m", "90s", "1h30m", "500ms".
func formatDuration(_ duration: Duration) -> String {
    let milliseconds = duration.nanoseconds / 1_000_000
    if milliseconds % 1000 != 0 { return "\(milliseconds)ms" }
    var seconds = milliseconds / 1000
    var text = ""
    if seconds >= 3600 {
        text += "\(seconds / 3600)h"
        seconds %= 3600
    }
    if seconds >= 60 {
        text += "\(seconds / 60)m"
        seconds %= 60
    }
    if seconds > 0 || text.isEmpty { text += "\(seconds)s" }
    return text
}
