import Foundation
import LiveConnection
import LiveConnectionChecker
import LiveConnectionSimulator

extension Command {
    /// `livesim check`: exhaustive search of the connection machine's state space.
    static let check = Command(
        name: "check",
        summary: "model-check the connection machine exhaustively",
        usage: """
            usage: livesim check [--depth N] [--max-states N] [--dfs] [--threads N] [--variant NAME]
                                 [--topics N] [--commands N] [--pings N] [--log N] [--no-eventually]
                                 [--traces DIR]

            Explores every state of the connection machine in a bounded environment and checks
            its properties. Prints states generated, distinct states, depth, states/s and memory;
            on a violation prints the shortest counterexample (breadth-first), writes it to DIR
            as a simulator trace, replays that trace against the real shell in the simulator,
            says what the shell did, and exits 1. `livesim replay FILE` runs it again. Progress
            (depth, states, states/s) goes to standard error.

              --depth N        do not expand states deeper than N, 0 to 1000000 (default: no bound)
              --max-states N   stop after N distinct states, 1 to 1000000000 (default: no bound)
              --dfs            depth-first with 64-bit fingerprints (bounded memory, paths not shortest)
              --threads N      worker threads for breadth-first expansion, 1 to 256 (default: all cores)
              --variant NAME   check a planted bug: \(LogicVariant.all.dropFirst().map(\.name).joined(separator: ", "))
              --topics N       topics the app may subscribe to, 0...3 (default 2)
              --commands N     commands the app may send, 0...3 (default 2)
              --pings N        app pings the app may ask for, 0 or 1, with commands + pings at most 3
                               (default 1, or 0 with --commands 3)
              --log N          highest sequence number the server broadcasts, 0...7 (default 2)
              --no-eventually  skip the no-deadlock check (faster)
              --traces DIR     where a counterexample's trace is written (default .livesim/traces,
                               git-ignored; --traces Traces makes it a regression the suite replays)
              --overwrite      replace a trace of the same name (default: write NAME-2.trace, …)
            """,
        exitCodes: [
            0: "every property held and every `sometimes` goal was reached",
            1:
                "a property was violated (an unreached `sometimes` is one only when the search was exhaustive), or an error",
            2:
                "nothing was violated, but --depth or --max-states stopped the search before some `sometimes` goal was reached",
        ],
        parse: { arguments throws(ArgumentError) in
            var options = CheckOptions()
            var bounds = ConnectionBounds.standard
            options.maxDepth = try arguments.integer("--depth", in: 0...1_000_000)
            options.maxStates = try arguments.integer("--max-states", in: 1...1_000_000_000)
            options.threads = try arguments.integer(
                "--threads", in: Arguments.threads, default: ProcessInfo.processInfo.activeProcessorCount)
            if try arguments.flag("--dfs") { options.order = .depthFirst }
            if try arguments.flag("--no-eventually") { options.checkEventually = false }
            let variant = try arguments.variant() ?? .correct
            bounds.topics = try arguments.integer("--topics", in: 0...3, default: bounds.topics)
            bounds.commands = try arguments.integer("--commands", in: 0...3, default: bounds.commands)
            bounds.pings = try arguments.integer("--pings", in: 0...1, default: min(bounds.pings, 3 - bounds.commands))
            guard bounds.commands + bounds.pings <= 3 else {
                throw .conflict(
                    "--pings 1 needs --commands 2 or fewer (the ping takes a command's place in the packed state)")
            }
            bounds.serverLog = try arguments.integer("--log", in: 0...7, default: bounds.serverLog)
            let traces = try TraceOutput(&arguments, option: "--traces")
            try arguments.finish()
            return { [options, bounds] in try runCheck(options, bounds: bounds, variant: variant, traces: traces) }
        })
}

private func runCheck(_ options: CheckOptions, bounds: ConnectionBounds, variant: LogicVariant, traces: TraceOutput)
    throws -> Int32
{
    let model = try ConnectionModel(bounds: bounds, variant: variant)
    print(
        "livesim check: connection machine (\(variant)), topics \(bounds.topics), commands \(bounds.commands), "
            + "pings \(bounds.pings), server log \(bounds.serverLog), endpoints \(bounds.endpoints)")
    let properties = model.properties
    print("properties: " + properties.map(\.name).joined(separator: ", "))
    // The state count is unknown until the end: the line shows depth, states and rate (a
    // --max-states bound gives the estimate).
    let progress = ProgressLine("checked", unit: "states", total: options.maxStates)
    var options = options
    options.progress = { statistics in
        progress.update(statistics.distinctStates, "depth \(statistics.depthReached)")
    }
    let result = model.check(options)
    progress.finish(result.statistics.distinctStates, "depth \(result.statistics.depthReached)")
    print(result.statistics)
    let unreached = result.notReachedWithinBound
    if !unreached.isEmpty {
        print(
            "result: no violation; not reached within the bound: \(unreached.joined(separator: ", ")) "
                + "(a bounded search cannot tell whether these are reachable; raise or drop --depth/--max-states)")
        return CheckExit.notReachedWithinBound
    }
    guard let violation = result.violation else {
        print("result: pass (\(properties.count) properties)")
        return 0
    }
    print("result: VIOLATION of \(violation.property) (\(violation.kind.rawValue)): \(violation.message)")
    if !violation.counterexample.steps.isEmpty {
        print(
            "shortest counterexample, \(violation.counterexample.length) step\(violation.counterexample.length == 1 ? "" : "s"):"
        )
        for line in model.replay(violation.counterexample).lines { print(line) }
        try writeTrace(of: violation, in: model, to: traces)
    }
    return 1
}

/// Writes the counterexample as a simulator trace whose `expect:` line is what replaying
/// it against the real shell shows, and says what that was.
private func writeTrace(
    of violation: PropertyViolation<ConnectionModel>, in model: ConnectionModel, to output: TraceOutput
)
    throws
{
    var written = model.trace(of: violation)
    let replay = try written.settle()
    let path = try output.write(written.trace, named: written.fileName)
    print("wrote \(path) (replay: livesim replay \(path))")
    for gap in written.gaps { print("  not as the model took it: \(gap)") }
    print("in the simulator: \(replay.summary)")
}

/// `livesim check`'s exit status beyond 0 (pass) and 1 (violation).
enum CheckExit {
    /// A bounded search found no violation but left some `sometimes` goal unreached.
    static let notReachedWithinBound: Int32 = 2
}
