import Foundation
import LiveConnection
import LiveConnectionSimulator

extension Command {
    /// `livesim shrink`: find a failing run, shrink it to a minimal trace, write it to `Traces/`.
    static let shrink = Command(
        name: "shrink",
        summary: "shrink a failing run to a minimal trace and save it",
        usage: """
            usage: livesim shrink FILE.trace [options]
                   livesim shrink --seed N [--variant NAME] [options]
                   livesim shrink --seeds A..<B [--variant NAME] [options]   (the first failing seed)

            Runs the trace, the seed, or each seed of the range until one violates an
            invariant, then shrinks its schedule (delta debugging over actions and intents,
            then simpler arguments and earlier times) while it still violates the same
            invariant, and writes the result with `expect: violation NAME`.

            options:
              --invariant NAME   shrink towards this invariant (default: the variant's, or the first violated)
              --duration 1h      virtual time per generated run (as for explore; default 1h)
              --strategy KIND    fifo, random or pct for generated runs (as for explore; default per seed)
              --budget N         at most N runs while shrinking (default 2000)
              --out DIR          where to write <invariant>-seed<N>.trace (default Traces)
            Exit status: 0 a trace was written, 1 nothing failed or an error, 64 bad arguments.
            """,
        run: { arguments in
            let seed = try arguments.option("--seed") { UInt64($0) }
            let seeds = try arguments.option("--seeds", parse: parseSeeds)
            let variantName = try arguments.option("--variant")
            let invariantName = try arguments.option("--invariant")
            let duration = try arguments.option("--duration", parse: parseDuration)
            let strategy = try arguments.option("--strategy", parse: { StrategyChoice.Kind(rawValue: $0) })
            let budget = try arguments.option("--budget") { Int($0).flatMap { $0 > 0 ? $0 : nil } } ?? 2_000
            let directory = try arguments.option("--out") ?? "Traces"
            let file = arguments.optionalPositional()
            try arguments.finish()

            // The same generator options as `livesim explore`.
            let generator = ScenarioGenerator(duration: duration ?? .seconds(3600), strategy: strategy)
            let wanted = try invariantName.map { name throws(ShrinkError) in
                guard let invariant = Invariant.named(name) else { throw .unknownInvariant(name) }
                return invariant
            }

            var variant = LogicVariant.correct
            if let variantName {
                guard let named = LogicVariant.named(variantName) else {
                    throw TraceReplayError.unknownVariant(variantName, known: LogicVariant.all.map(\.name))
                }
                variant = named
            }
            // The candidates, in order, made one at a time (a range may hold many seeds).
            let count: Int
            let candidate: (Int) -> Scenario
            switch (file, seed, seeds) {
            case (let path?, nil, nil):
                let trace = try TraceFile(path: path).trace
                variant = try trace.logicVariant()
                let scenario = trace.scenario
                (count, candidate) = (1, { _ in scenario })
            case (nil, let seed?, nil): (count, candidate) = (1, { _ in generator.scenario(seed: seed) })
            case (nil, nil, let range?):
                (count, candidate) = (range.count, { generator.scenario(seed: range.lowerBound + UInt64($0)) })
            default: throw ArgumentError.missingPositional("exactly one of FILE.trace, --seed N, --seeds A..<B")
            }
            let target = wanted ?? variant.breaks

            for index in 0..<count {
                let scenario = candidate(index)
                let result = SimulationRun(scenario, variant: variant, recordsLog: false).run()
                guard let violation = result.violations.first(where: { target == nil || $0.invariant == target }) else {
                    continue
                }
                print("seed \(scenario.seed): \(violation)")
                let counterexample = Counterexample.shrink(
                    scenario, variant: variant, invariant: violation.invariant, maximumAttempts: budget)
                let library = TraceLibrary(directory: URL(fileURLWithPath: directory))
                let url = try library.write(counterexample.trace, named: counterexample.fileName)
                print(
                    "shrunk \(scenario.schedule.count) actions to \(counterexample.shrunk.schedule.count) in \(counterexample.shrinking.attempts) runs"
                        + (counterexample.shrinking.budgetExhausted ? " (budget exhausted)" : ""))
                print("wrote \(directory)/\(url.lastPathComponent)")
                print("replay: livesim replay \(directory)/\(url.lastPathComponent)")
                return 0
            }
            print("no run violated \(target?.name ?? "any invariant")")
            return 1
        })
}

/// A shrink request that names something that does not exist.
enum ShrinkError: Error, CustomStringConvertible {
    case unknownInvariant(String)

    var description: String {
        "unknown invariant '\(self.name)' (known: \(Invariant.all.map(\.name).joined(separator: ", ")))"
    }

    private var name: String {
        switch self {
        case .unknownInvariant(let name): name
        }
    }
}
