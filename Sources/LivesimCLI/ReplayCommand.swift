import Foundation
import LiveConnection
import LiveConnectionSimulator
import LiveConnectionWire

extension Command {
    /// `livesim replay FILE` / `livesim replay --seed N`: run a trace (or a seed) again and print its timeline.
    static let replay = Command(
        name: "replay",
        summary: "re-run a trace file or a seed and print its timeline",
        usage: """
            usage: livesim replay FILE.trace [--quiet] [--write OUT.trace] [--overwrite] [--svg OUT.svg]
                   livesim replay --seed N [--variant NAME] [--duration 1h] [--strategy fifo|random|pct] [--quiet] [--write OUT.trace] [--svg OUT.svg]

            Runs the trace's schedule (or the scenario the swarm generator makes from seed N)
            against the manager, printing one line per input, effect and action with its
            virtual time, then the violations. --write saves the run as a trace, with its
            timeline in the observed section, for `livesim diff`. --svg draws that timeline:
            the manager's phases over virtual time, the actions, deliveries and violations.
            A wire trace (one with a `client:` line) runs its client kind and prints what the
            server saw; --write re-records that in its observed section (no --svg). A trace
            livesim cannot reproduce by itself is refused with the command that can: one a
            test produced (a `test:` line: only the test replays it, with LIVESIM_TRACE), or
            one of a client this livesim does not have.

              --seed N         the seed, 0 to 18446744073709551615, as explore printed it
              --variant V      the logic to run (default correct): \(SimulationUsage.variants)
              --duration D     \(SimulationUsage.duration); default 1h (as for explore)
              --strategy S     fifo, random or pct (default: the seed picks, as for explore)
              --quiet          print only the verdict
              --write OUT      save the run as a trace; an existing OUT is kept unless --overwrite
              --svg OUT        draw the run's timeline as an SVG picture
            """,
        exitCodes: [
            0: "the run shows what the trace's `expect:` line says (no expect line: every invariant held)",
            1: "it does not, or an error (unreadable or malformed trace, OUT exists)",
        ],
        parse: { arguments, environment throws(ArgumentError) in
            let seed = try arguments.seed("--seed")
            let variant = try arguments.variant()
            let duration = try arguments.runDuration()
            let strategy = try arguments.strategy()
            let quiet = try arguments.flag("--quiet")
            let output = try arguments.option("--write")
            let overwrite = try arguments.flag("--overwrite")
            let picture = try arguments.option("--svg")
            let file = try arguments.optionalPositional()
            try arguments.finish()
            let source: ReplaySource
            switch (file, seed) {
            case (let path?, nil):
                guard variant == nil, duration == nil, strategy == nil else {
                    throw .conflict("--variant, --duration and --strategy go with --seed: a trace file names its own")
                }
                source = .file(path)
            case (nil, let seed?):
                // The same generator options as `livesim explore`, so its replay lines work here.
                let generator = ScenarioGenerator(duration: duration ?? .seconds(3600), strategy: strategy)
                source = .seed(seed, generator, variant ?? .correct)
            case (nil, nil): throw .missingPositional("FILE.trace or --seed N")
            case (.some, .some): throw .conflict("give a trace file or --seed, not both")
            }
            return {
                try replayRun(
                    source, clients: environment.clients, quiet: quiet, output: output, overwrite: overwrite,
                    picture: picture)
            }
        })
}

/// What `replay` runs: a trace file, or a generated seed.
private enum ReplaySource {
    case file(String)
    case seed(UInt64, ScenarioGenerator, LogicVariant)
}

private func replayRun(
    _ source: ReplaySource, clients: ClientCatalogue, quiet: Bool, output: String?, overwrite: Bool, picture: String?
) throws -> Int32 {
    if let output, !overwrite, FileManager.default.fileExists(atPath: output) {
        throw CommandFailure("\(clipped(output, to: 200)) exists; pass --overwrite to replace it")
    }
    var trace: Trace
    switch source {
    case .file(let path):
        trace = try TraceFile(path: path).trace
        try refuseUnreproducible(trace, path: path, clients: clients)
    case .seed(let seed, let generator, let variant):
        trace = Trace(
            scenario: generator.scenario(seed: seed), generator: ScenarioGenerator.traceIdentity, variant: variant)
    }

    if trace.client != nil {
        // A wire trace: its client kind against the same schedule, judged from the wire.
        guard picture == nil else {
            throw CommandFailure("a wire trace (client: \(trace.client ?? "")) has no manager phases to draw: no --svg")
        }
        return try replayClientTrace(trace, clients: clients, quiet: quiet, output: output)
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
        let name: String
        if case .file(let path) = source { name = path } else { name = "seed \(trace.scenario.seed)" }
        let title = "\(name): \(verdict ? "as expected" : "NOT as expected")"
        try TimelinePicture(timeline: result.observedEvents, title: title).svg()
            .write(toFile: picture, atomically: true, encoding: .utf8)
        print("wrote \(picture)")
    }
    return verdict ? 0 : 1
}
