import Foundation
import LiveConnection
import LiveConnectionSimulator

extension Command {
    /// `livesim shrink`: find a failing run, shrink it to a minimal trace, write it to `.livesim/traces/` (or `--out DIR`).
    static let shrink = Command(
        name: "shrink",
        summary: "shrink a failing run to a minimal trace and save it",
        usage: """
            usage: livesim shrink FILE.trace [--rule NAME] [--budget N] [--out DIR] [--overwrite]
                   livesim shrink --seed N [--variant NAME] [options]
                   livesim shrink --seeds 0..300 [--variant NAME] [options]   (the first failing seed)

            Runs the trace, the seed, or each seed of the range until one breaks a rule,
            then shrinks its schedule (delta debugging over actions and intents, then
            simpler arguments and earlier times) while it still breaks the same rule, and
            writes the result with `expect: violation NAME`. --seed N is
            0 to 18446744073709551615.

            options:
              --rule NAME        shrink towards this rule (default: the variant's, or the first broken);
                                 --invariant NAME is its former name
              --variant V        the logic to run (default correct): \(SimulationUsage.variants)
              --duration D       \(SimulationUsage.duration); default 1h (as for explore)
              --strategy S       fifo, random or pct for generated runs (as for explore; default per seed)
              --seeds R          as for explore: 0..300, 0-300, "0..<300", 0...299 or 300; 1 to 100000000 seeds
              --budget N         at most N runs while shrinking, 1 to 1000000 (default 2000)
              --out DIR          where to write <rule>-seed<N>.trace (default .livesim/traces, git-ignored;
                                 --out Traces makes it a regression the suite replays)
              --overwrite        replace a trace of the same name (default: write NAME-2.trace, …)
            Progress goes to standard error.
            """,
        exitCodes: [0: "a trace was written", 1: "nothing failed, or an error (unreadable trace, cannot write)"],
        parse: { arguments throws(ArgumentError) in
            let seed = try arguments.seed("--seed")
            let seeds = try arguments.seeds("--seeds")
            let chosenVariant = try arguments.variant()
            let wanted = try arguments.rule()
            let duration = try arguments.runDuration()
            let strategy = try arguments.strategy()
            let budget = try arguments.integer("--budget", in: 1...1_000_000, default: 2_000)
            let output = try TraceOutput(&arguments, option: "--out")
            let file = try arguments.optionalPositional()
            try arguments.finish()

            // The same generator options as `livesim explore`.
            let generator = ScenarioGenerator(duration: duration ?? .seconds(3600), strategy: strategy)
            let source: ShrinkSource
            switch (file, seed, seeds) {
            case (let path?, nil, nil):
                guard chosenVariant == nil, duration == nil, strategy == nil else {
                    throw .conflict(
                        "--variant, --duration and --strategy go with --seed/--seeds: a trace file names its own")
                }
                source = .file(path)
            case (nil, let seed?, nil): source = .seeds(first: seed, count: 1, generator)
            case (nil, nil, let range?): source = .seeds(first: range.lowerBound, count: range.count, generator)
            default: throw .conflict("give exactly one of FILE.trace, --seed N, --seeds A..B")
            }
            return {
                try shrinkFirstFailure(
                    source, variant: chosenVariant ?? .correct, wanted: wanted, budget: budget, output: output)
            }
        })
}

/// What `shrink` searches: a trace file, or generated seeds.
private enum ShrinkSource {
    case file(String)
    /// `count` seeds from `first` (a count, not a range: the last seed, 2^64 - 1, has no end bound).
    case seeds(first: UInt64, count: Int, ScenarioGenerator)
}

private func shrinkFirstFailure(
    _ source: ShrinkSource, variant: LogicVariant, wanted: Rule?, budget: Int, output: TraceOutput
)
    throws -> Int32
{
    // The candidates, in order, made one at a time (a range may hold many seeds).
    var variant = variant
    let count: Int
    let candidate: (Int) -> Scenario
    switch source {
    case .file(let path):
        let trace = try TraceFile(path: path).trace
        variant = try trace.logicVariant()
        let scenario = trace.scenario
        (count, candidate) = (1, { _ in scenario })
    case .seeds(let first, let seeds, let generator):
        (count, candidate) = (seeds, { generator.scenario(seed: first + UInt64($0)) })
    }
    let target = wanted ?? variant.breaks
    let progress = ProgressLine("ran", unit: "seeds", total: count)
    for index in 0..<count {
        progress.update(index)
        let scenario = candidate(index)
        let result = SimulationRun(scenario, variant: variant, recordsLog: false).run()
        guard let violation = result.violations.first(where: { target == nil || $0.rule == target }) else {
            continue
        }
        if count > 1 { progress.finish(index + 1, "found a failure") }
        print("seed \(scenario.seed): \(violation)")
        standardError("shrinking (at most \(budget) runs)…")
        let counterexample = SimulationCounterexample.shrink(
            scenario, variant: variant, invariant: violation.rule, maximumAttempts: budget)
        let path = try output.write(counterexample.trace, named: counterexample.fileName)
        print(
            "shrunk \(scenario.schedule.count) actions to \(counterexample.shrunk.schedule.count) in \(counterexample.shrinking.attempts) runs"
                + (counterexample.shrinking.budgetExhausted ? " (budget exhausted)" : ""))
        print("wrote \(path)")
        print("replay: livesim replay \(path)")
        return 0
    }
    if count > 1 { progress.finish(count) }
    print("no run violated \(target?.name ?? "any rule")")
    return 1
}
