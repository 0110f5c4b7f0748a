import Foundation
import LiveConnectionSimulator
import LiveConnectionWire

import typealias LiveConnection.Mutex

/// `livesim explore --client NAME`: the wire world for one client kind, judged from the
/// server's side; the first failing seed of every violated rule is shrunk and saved. The
/// replay lines name `program`: a user's client replays only in the user's own livesim.
func exploreClientMain(
    kind: ClientKind, seeds: Range<UInt64>, duration: Duration, threads: Int?, traces output: TraceOutput,
    program: String
) -> Int32 {
    var output = output
    output.directory = (output.directory as NSString).appendingPathComponent("clients")
    let explorer = WireExplorer(
        seeds: seeds, generator: WireScenarioGenerator(duration: duration), kind: kind, threads: threads)
    print(
        "livesim explore --client \(kind.name): \(seeds.count) seeds (\(seeds.lowerBound)..<\(seeds.upperBound)) × "
            + "\(formatDuration(duration)) (herds of \(explorer.generator.herdSize) × \(formatDuration(explorer.generator.herdDuration)) "
            + "on one seed in \(explorer.generator.herdEvery)), \(explorer.threads) threads, judged from the wire")
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
        let text =
            "\rexplored \(finished)/\(total) seeds, \(failed) failing, \(String(format: "%.1f", (now - started).seconds)) s"
        FileHandle.standardError.write(Data(text.utf8))
    }
    FileHandle.standardError.write(Data("\n".utf8))
    let wall = (ContinuousClock.now - started).seconds
    func row(_ label: String, _ value: String) {
        print(label.padding(toLength: 34, withPad: " ", startingAt: 0) + value)
    }
    print("")
    row("runs", "\(summary.runs) (\(summary.herdRuns) herds)")
    row("simulated time", formatSimulatedTime(seconds: summary.simulatedTime.seconds))
    row("wall time", String(format: "%.2f s (%.1f ms a seed)", wall, wall * 1000 / Double(max(1, summary.runs))))
    row("executor jobs", "\(summary.jobsRun)")
    row("wire checks", "\(summary.checks)")
    row("network path changes", "\(summary.pathChanges)")
    print("\nviolations, by wire rule (runs)")
    for (rule, runs) in summary.violatingRuns { row("  \(rule.name)", "\(runs)") }
    if summary.deadlocks > 0 { row("  simulation did not finish", "\(summary.deadlocks)") }
    guard !summary.passed else { return 0 }
    for failure in summary.failures where failure.deadlocked {
        print(
            "\nseed \(failure.seed)\(failure.clients > 1 ? " (a herd of \(failure.clients))" : ""): the simulation "
                + "\(failure.unfinished ?? "did not finish")")
        print("  replay: \(program) explore --client \(kind.name) --seeds \(failure.seed)...\(failure.seed)")
    }

    print("\n\(summary.failureCount) failing run(s). The first failing seed of each rule, shrunk:")
    let generator = explorer.generator
    for rule in Rule.wireRules {
        guard let failure = summary.firstFailure(of: rule),
            let violation = failure.violations.first(where: { $0.rule == rule })
        else { continue }
        print("\n\(rule.name): seed \(failure.seed)\(failure.clients > 1 ? " (a herd of \(failure.clients))" : "")")
        print("  \(violation)")
        let counterexample = WireCounterexample.shrink(generator.scenario(seed: failure.seed), kind: kind, rule: rule)
        let shrunk = counterexample.shrunk.base.schedule
        print(
            "  shrunk from \(counterexample.original.base.schedule.count) to \(shrunk.count) actions in \(counterexample.shrinking.attempts) runs:"
        )
        for action in shrunk { print("    \(action.traceLine)") }
        if let found = counterexample.result.violations.first(where: { $0.rule == rule }) { print("  then: \(found)") }
        print("  what the server saw:")
        for line in counterexample.result.wire.prefix(12) { print("    \(line)") }
        if counterexample.result.wire.count > 12 { print("    … \(counterexample.result.wire.count - 12) more") }
        do {
            let path = try output.write(counterexample.trace, named: counterexample.fileName)
            print("  trace: \(path)  (replay: swift run \(program) replay \(path))")
        } catch {
            standardError("livesim explore: could not write the shrunk trace to \(output.directory): \(error)")
        }
    }
    return 1
}

/// Replays a wire trace (one with a `client:` line): the same schedule, the same client kind,
/// found in `clients`. With `output`, saves the trace again with what the server saw in this
/// run (and this build).
func replayClientTrace(_ trace: Trace, clients: ClientCatalogue, quiet: Bool, output: String? = nil) throws -> Int32 {
    let kind = try clients.kind(named: trace.client ?? "")
    let result = WireRun(trace.wireScenario, kind: kind).run()
    if !quiet { for line in result.wire { print(line) } }
    let shows: Bool
    switch trace.expectation {
    case .violation(let name)?:
        shows = result.violations.contains { $0.rule.name == name }
        print("expected violation \(name): \(shows ? "reproduced" : "NOT reproduced")")
    case .pass?, nil:
        shows = result.passed
    }
    if result.violations.isEmpty { print(result.deadlocked ? "deadlocked" : "every wire rule held") }
    for violation in result.violations { print("violation: \(violation)") }
    if let output {
        var recorded = trace
        recorded.observed = result.observedEvents
        try TraceLibrary.write(recorded, toFile: output)
        print("wrote \(output)")
    }
    return shows ? 0 : 1
}
