import Foundation
import LiveConnection
import LiveConnectionSimulator

extension Command {
    /// `livesim replay FILE` / `livesim replay --seed N`: run a trace (or a seed) again and print its timeline.
    static let replay = Command(
        name: "replay",
        summary: "re-run a trace file or a seed and print its timeline",
        usage: """
            usage: livesim replay FILE.trace [--quiet] [--write OUT.trace] [--svg OUT.svg]
                   livesim replay --seed N [--variant NAME] [--duration 1h] [--strategy fifo|random|pct] [--quiet] [--write OUT.trace] [--svg OUT.svg]

            Runs the trace's schedule (or the scenario the swarm generator makes from seed N)
            against the manager, printing one line per input, effect and action with its
            virtual time, then the violations. --write saves the run as a trace, with its
            timeline in the observed section, for `livesim diff`. --svg draws that timeline:
            the manager's phases over virtual time, the actions, deliveries and violations.
            Exit status: 0 when the run shows what the trace's `expect:` line says (or, with
            no expect line, when every invariant held); 1 otherwise or on an error;
            64 bad arguments.
            """,
        run: { arguments in
            let seed = try arguments.option("--seed") { UInt64($0) }
            let variantName = try arguments.option("--variant")
            let duration = try arguments.option("--duration", parse: parseDuration)
            let strategy = try arguments.option("--strategy", parse: { StrategyChoice.Kind(rawValue: $0) })
            let quiet = arguments.flag("--quiet")
            let output = try arguments.option("--write")
            let picture = try arguments.option("--svg")
            let file = arguments.optionalPositional()
            try arguments.finish()

            var trace: Trace
            switch (file, seed) {
            case (let path?, nil):
                guard variantName == nil, duration == nil, strategy == nil else {
                    throw ArgumentError.unexpected("--variant/--duration/--strategy: a trace file names its own")
                }
                trace = try TraceFile(path: path).trace
            case (nil, let seed?):
                // The same generator options as `livesim explore`, so its replay lines work here.
                let generator = ScenarioGenerator(duration: duration ?? .seconds(3600), strategy: strategy)
                let variant =
                    try variantName.map { name throws(TraceReplayError) in
                        guard let variant = LogicVariant.named(name) else {
                            throw .unknownVariant(name, known: LogicVariant.all.map(\.name))
                        }
                        return variant
                    } ?? .correct
                trace = Trace(
                    scenario: generator.scenario(seed: seed), generator: ScenarioGenerator.traceIdentity,
                    variant: variant)
            case (nil, nil): throw ArgumentError.missingPositional("FILE.trace or --seed N")
            case (.some, .some): throw ArgumentError.unexpected("give a trace file or --seed, not both")
            }

            // A trace file is replayed faithfully even when it came from the other build mode.
            let replay = try trace.replay()
            let result = replay.result
            if let note = replay.note { print("note: \(note)") }
            if !quiet {
                for line in result.log { print(line) }
            }
            let verdict: Bool
            if let expectation = trace.expectation {
                verdict = result.satisfies(expectation)
                print("expected \(expectation): \(verdict ? "reproduced" : "NOT reproduced")")
            } else {
                verdict = result.passed
            }
            if result.violations.isEmpty {
                print(result.deadlocked ? "deadlocked" : "every invariant held")
            } else {
                for violation in result.violations { print("violation: \(violation)") }
            }
            if let output {
                trace.scenario.strategy = replay.strategy
                trace.observed = result.observedEvents
                try TraceLibrary.write(trace, toFile: output)
                print("wrote \(output)")
            }
            if let picture {
                let title = "\(file ?? "seed \(trace.scenario.seed)"): \(verdict ? "as expected" : "NOT as expected")"
                try TimelinePicture(timeline: result.observedEvents, title: title).svg()
                    .write(toFile: picture, atomically: true, encoding: .utf8)
                print("wrote \(picture)")
            }
            return verdict ? 0 : 1
        })
}
