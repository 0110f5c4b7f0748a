import Foundation
import LiveConnectionSimulator

extension Command {
    static let explore = Command(
        name: "explore",
        summary: "run many seeds of swarm-tested simulation in parallel and check every invariant",
        usage: { environment in
            """
            usage: livesim explore [--seeds 0..100] [--duration 1h] [--strategy fifo|random|pct]
                                   [--variant NAME | --client NAME] [--threads N] [--traces DIR] [--overwrite]
                                   [--check-determinism] [--shard K/N] [--report FILE.json]

              --seeds R      seeds to run (default 0..\(ExploreDefaults.seeds)): 0..300 or 0-300 (0 to 299, no quoting
                             needed), "0..<300" (the same), 0...299 (the same), or 300 (0 to 299);
                             1 to 100000000 seeds, never none
              --duration D   \(SimulationUsage.duration); default 1h
              --strategy S   the executor's job order for every seed: fifo, random or pct (default: each seed picks)
              --variant V    the logic to run (default correct): \(SimulationUsage.variants)
              --client C     judge a reconnecting client from the wire instead of the manager's
                             invariants; each rule's first failing seed is shrunk and its trace
                             written to DIR/clients (not with --variant, --strategy,
                             --check-determinism, --shard or --report). Clients:
            \(environment.clientHelp)
              --threads N    worker threads, 1 to 256 (default: every core)
              --traces DIR   where the first failure's shrunk trace is written (default .livesim/traces,
                             git-ignored; --traces Traces makes it a regression the suite replays)
              --overwrite    replace a trace of the same name (default: write NAME-2.trace, NAME-3.trace, …)
              --check-determinism
                             run every seed twice with its full log and fail a seed whose two logs
                             differ by one byte (about twice the time)
              --shard K/N    run only the K-th of N equal contiguous parts of --seeds, K from 0 to N-1,
                             N from 1 to 100000 and at most the number of seeds (a Kubernetes Indexed
                             Job's completion index is K; see docs/scale.md)
              --report FILE  write the results as JSON (seeds, counters, failures with their replay
                             lines); `livesim merge` joins the shards' reports. An existing FILE is
                             refused before anything runs, unless --overwrite

            Each seed derives its whole run (configuration, which fault kinds are on and how
            often, the schedule, latencies, the job order) from one 64-bit value. Progress goes
            to standard error. Prints the seed and the command that replays each failure.
            """
        },
        exitCodes: [
            0: "every run held every invariant",
            1: "a run violated an invariant (or was not deterministic), or an error (the report cannot be written)",
        ],
        parse: { arguments, environment throws(ArgumentError) in
            let seeds = try arguments.seeds("--seeds", default: 0..<ExploreDefaults.seeds)
            let duration = try arguments.runDuration() ?? .seconds(3600)
            let strategy = try arguments.strategy()
            let variantChoice = try arguments.variant()
            let client = try arguments.choice("--client", from: environment.clients.names)
                .flatMap { name in environment.clients.kinds.first { $0.name == name } }
            let threads = try arguments.integer("--threads", in: Arguments.threads)
            let traces = try TraceOutput(&arguments, option: "--traces")
            let determinism = try arguments.flag("--check-determinism")
            let shard = try arguments.option("--shard") { text throws(ArgumentError) in try Shard(text, of: seeds) }
            let report = try arguments.option("--report")
            if report?.isEmpty == true { throw .invalidValue("--report", "", expected: "a file name") }
            try arguments.finish()
            if let client {
                guard variantChoice == nil, strategy == nil, !determinism, shard == nil, report == nil else {
                    throw .conflict(
                        "--client judges a client from the wire: no --variant, --strategy, --check-determinism, --shard or --report"
                    )
                }
                return {
                    exploreClientMain(
                        kind: client, seeds: seeds, duration: duration, threads: threads, traces: traces,
                        program: environment.program)
                }
            }
            let variant = variantChoice ?? .correct
            return {
                try exploreMain(
                    seeds: seeds, shard: shard, duration: duration, strategy: strategy, variant: variant,
                    threads: threads, traces: traces, checksDeterminism: determinism,
                    report: report.map { ReportOutput(path: $0, overwrite: traces.overwrite) })
            }
        })
}

enum ExploreDefaults {
    /// 100 simulated hours: CI runs `swift run livesim explore` in debug, where this takes
    /// about 25 s on two cores (about 6 s in release).
    static let seeds: UInt64 = 100
}

private func exploreMain(
    seeds all: Range<UInt64>, shard: Shard?, duration: Duration, strategy: StrategyChoice.Kind?, variant: LogicVariant,
    threads: Int?, traces: TraceOutput, checksDeterminism: Bool, report output: ReportOutput?
) throws -> Int32 {
    // Refused before the exploration: hours of work must not end in a file that cannot be written.
    try output?.checkWritable()
    let seeds = shard?.seeds ?? all
    let explorer = Explorer(
        seeds: seeds, generator: ScenarioGenerator(duration: duration, strategy: strategy), variant: variant,
        threads: threads, failureLimit: ExplorationReport.failureLimit, checksDeterminism: checksDeterminism)
    print(
        "livesim explore: \(seeds.count) seeds (\(seeds.lowerBound)..<\(seeds.upperBound)"
            + (shard.map { ", shard \($0.index)/\($0.count) of \(all.lowerBound)..<\(all.upperBound)" } ?? "")
            + ") × \(formatDuration(duration)), "
            + "strategy \(strategy?.rawValue ?? "per seed"), variant \(variant.name), \(explorer.threads) threads"
            + (checksDeterminism ? ", each seed twice (determinism)" : ""))
    let started = ContinuousClock.now
    let progress = ProgressLine("explored", unit: "seeds", total: seeds.count)
    let summary = explorer.run { finished, failed in progress.update(finished, "\(failed) failing") }
    progress.finish(summary.runs, "\(summary.failureCount) failing")
    let wall = (ContinuousClock.now - started).seconds
    let report = ExplorationReport(
        summary, seeds: seeds, duration: duration, strategy: strategy?.rawValue, checksDeterminism: checksDeterminism,
        wallSeconds: wall, threads: explorer.threads,
        replay: { replayCommand(seed: $0, duration: duration, strategy: strategy, variant: variant) })
    if let output { try output.write(report) }
    printReport(report)
    guard !summary.passed else { return 0 }
    saveShrunkCounterexample(of: summary, generator: explorer.generator, variant: variant, output: traces)
    return 1
}

/// The one-line command that re-runs a seed exactly (the options that shaped its scenario included).
func replayCommand(seed: UInt64, duration: Duration, strategy: StrategyChoice.Kind?, variant: LogicVariant) -> String {
    var words = ["swift run livesim replay --seed \(seed)"]
    if variant != .correct { words.append("--variant \(variant.name)") }
    if duration != .seconds(3600) { words.append("--duration \(formatDuration(duration))") }
    if let strategy { words.append("--strategy \(strategy.rawValue)") }
    return words.joined(separator: " ")
}
