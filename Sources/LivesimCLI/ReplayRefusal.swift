import LiveConnectionChecker
import LiveConnectionSimulator
import LiveConnectionWire

/// The traces `livesim replay` cannot reproduce by itself, and what to run instead.
///
/// A trace says what produced it (``Trace/producer``). livesim runs the manager and the
/// clients compiled into it; a trace a user's test produced, or one judging a client
/// livesim does not have, would be replayed as something else (the manager alone, for an
/// hour, ending "every invariant held"): a confident answer to a question nobody asked.
/// Those are refused, with the command that does replay them.
///
/// ```swift
/// try refuseUnreproducible(trace, path: "out/seed0.trace", clients: environment.clients)
/// // livesim replay: out/seed0.trace was produced by the test 'ChatTests/showsEveryMessageOnce' …
/// ```
func refuseUnreproducible(_ trace: Trace, path: String, clients: ClientCatalogue) throws(CommandFailure) {
    let seed = trace.scenario.seed
    switch trace.producer {
    case .test(let name):
        throw CommandFailure(
            "\(clipped(path, to: 200)) was produced by the test '\(clipped(name, to: 200))' (seed \(seed)): only that "
                + "test's code can run it again, and livesim would replay something else. Replay it with: "
                + "LIVESIM_TRACE=\(clipped(path, to: 200)) swift test --filter '\(clipped(name, to: 200))'")
    case .client(let name) where !clients.names.contains(name):
        throw CommandFailure(
            "\(clipped(path, to: 200)) judges the client '\(clipped(name, to: 200))', which this livesim does not have "
                + "(it has \(clients.names.joined(separator: ", "))). Replay it where the client is compiled: in a "
                + "livesim of your own, `Livesim.main(clients: [kind])` (docs/cli.md), or in a test, "
                + "`judgeOnTheWire(kind)` with LIVESIM_TRACE set to this file (docs/guide.md, section 10)")
    case .client:
        return
    case .manager:
        let name = trace.generator.name
        guard !livesimGenerators.contains(name) else { return }
        // A test's trace written before traces named their test: its generator is the test's name.
        throw CommandFailure(
            "\(clipped(path, to: 200)) was made by '\(clipped(name, to: 200))', not by livesim "
                + "(\(livesimGenerators.joined(separator: ", "))): if that is a test, only its code can run it "
                + "again. Replay it with: LIVESIM_SEED=\(seed) swift test --filter '\(clipped(name, to: 200))'")
    }
}

/// The generators whose manager traces livesim replays faithfully: the swarm's, the
/// checker's, and schedules written by hand or by the shrinker.
let livesimGenerators = [
    ScenarioGenerator.traceIdentity.name, ConnectionModel.traceGenerator.name, GeneratorID.handWritten.name,
]
