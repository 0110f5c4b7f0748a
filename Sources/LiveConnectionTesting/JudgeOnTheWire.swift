import Foundation
public import LiveConnectionSimulator
public import LiveConnectionWire
public import Testing

/// Judges a reconnecting client of your own from the wire, inside a Swift Testing test:
/// the swarm's seeds, every wire rule, each broken rule's first seed shrunk, and one issue
/// per broken rule with the line that replays its trace.
///
/// ```swift
/// @Test func myClientKeepsTheWireRules() throws {
///     let mine = ClientKind(name: "mine", summary: "my app's socket",
///                           claims: WireClaims(backoff: ClaimedBackoff(.fullJitter()), deadPeerBound: .seconds(35))) {
///         MyClient(context: $0)
///     }
///     try judgeOnTheWire(mine, seeds: 0..<200)
/// }
/// ```
///
/// A broken rule is reported as
/// `wire-one-socket: 12 of 200 seeds (3 7 …); seed 3 shrunk from 140 to 2 actions in 40 runs: …`
/// followed by the violation, the trace (attached, and written to
/// `.livesim/traces/clients/<client>-<rule>-seed<N>.trace` with the client's claims and the
/// test's name in its header) and `replay: LIVESIM_TRACE=… swift test --filter '…'`. Running
/// that line replays the shrunk trace against the same client kind, prints what the server
/// saw and reports what the rules say now. `livesim replay` cannot run it: the client is
/// compiled into your tests, not into livesim.
///
/// - Parameters:
///   - kind: the client under judgement, with its claims.
///   - seeds: the swarm seeds to run (`LIVESIM_SEED` narrows them to one).
///   - duration: virtual time per run.
///   - shrinkAttempts: at most this many runs while shrinking each broken rule's first seed.
///   - sourceLocation: where the issues point (the call, by default).
/// - Returns: what was judged, for further expectations.
/// - Throws: ``SeedsError`` for a malformed `LIVESIM_SEED` or `LIVESIM_TRACE`.
@discardableResult
public func judgeOnTheWire(
    _ kind: ClientKind, seeds: Range<UInt64> = 0..<100, duration: Duration = .seconds(3600),
    shrinkAttempts: Int = 400, sourceLocation: SourceLocation = #_sourceLocation
) throws -> WireJudgement {
    try judgeOnTheWire(
        kind, seeds: seeds, duration: duration, shrinkAttempts: shrinkAttempts,
        traceDirectory: TraceLibrary.scratchDirectory, sourceLocation: sourceLocation)
}

/// The same, writing traces under `traceDirectory` (tests of this module use a scratch folder).
func judgeOnTheWire(
    _ kind: ClientKind, seeds: Range<UInt64>, duration: Duration, shrinkAttempts: Int, traceDirectory: String,
    sourceLocation: SourceLocation
) throws -> WireJudgement {
    let test = Test.current.map(ReplayCommand.filter(for:))
    if let pinned = try PinnedTrace.current.get(), pinned.trace.test == test, pinned.trace.client == kind.name {
        return replayWireTrace(pinned, kind: kind, sourceLocation: sourceLocation)
    }
    let seeds = try Seeds.pinned(in: ProcessInfo.processInfo.environment).map { $0..<($0 &+ 1) } ?? seeds
    let generator = WireScenarioGenerator(duration: duration)
    let summary = WireExplorer(seeds: seeds, generator: generator, kind: kind).run()
    var judgement = WireJudgement(runs: summary.runs)
    for failure in summary.failures where failure.deadlocked {
        judgement.unfinished.append(failure.seed)
        Issue.record(
            Comment(
                rawValue:
                    "\(kind.name), seed \(failure.seed): the simulation \(failure.unfinished ?? "did not finish"); "
                    + "replay: \(ReplayCommand(seed: failure.seed, test: Test.current))"),
            sourceLocation: sourceLocation)
    }
    for rule in Rule.wireRules {
        let broken = summary.failures.filter { $0.violations.contains { $0.rule == rule } }.map(\.seed)
        guard let first = broken.first else { continue }
        judgement.failingSeeds[rule] = broken
        let counterexample = WireCounterexample.shrink(
            generator.scenario(seed: first), kind: kind, rule: rule,
            maximumAttempts: min(max(shrinkAttempts, 1), 100_000))
        var trace = counterexample.trace
        trace.test = test
        judgement.traces.append(trace)
        if Test.current != nil { Attachment.record(trace.encode(), named: counterexample.fileName) }
        var listed = broken.prefix(SimulationSummary.seedsListed).map(String.init).joined(separator: " ")
        if broken.count > SimulationSummary.seedsListed { listed += " …" }
        var lines = [
            "\(rule.name): \(broken.count) of \(summary.runs) seeds (\(listed)); seed \(first) shrunk from "
                + "\(counterexample.original.base.schedule.count) to \(counterexample.shrunk.base.schedule.count) actions "
                + "in \(counterexample.shrinking.attempts) runs",
            counterexample.result.violations.first { $0.rule == rule }.map { "then: \($0)" } ?? "",
        ]
        let directory = (traceDirectory as NSString).appendingPathComponent("clients")
        do {
            try TraceLibrary(directory: URL(fileURLWithPath: directory)).write(trace, named: counterexample.fileName)
            let path = (directory as NSString).appendingPathComponent(counterexample.fileName)
            lines.append("replay: \(ReplayCommand(seed: first, tracePath: path, test: Test.current))")
        } catch {
            lines.append("trace attached as \(counterexample.fileName); not written: \(error)")
        }
        Issue.record(
            Comment(rawValue: lines.filter { !$0.isEmpty }.joined(separator: "\n")), sourceLocation: sourceLocation)
    }
    return judgement
}

/// Replays a wire trace of this test (`LIVESIM_TRACE`) against `kind`: prints what the
/// server saw and records an issue for each rule broken now.
func replayWireTrace(_ pinned: PinnedTrace, kind: ClientKind, sourceLocation: SourceLocation)
    -> WireJudgement
{
    let result = WireRun(pinned.trace.wireScenario, kind: kind).run()
    SimulationFailureReport.printLine(
        "\(kind.name) replayed from \(pinned.path), what the server saw:\n"
            + result.wire.map { $0 + "\n" }.joined(),
        terminated: false)
    var judgement = WireJudgement(runs: 1)
    var recorded = pinned.trace
    recorded.observed = result.observedEvents
    judgement.traces = [recorded]
    if result.deadlocked { judgement.unfinished = [pinned.trace.scenario.seed] }
    for violation in result.violations {
        judgement.failingSeeds[violation.rule, default: []] = [pinned.trace.scenario.seed]
        Issue.record(
            Comment(rawValue: "\(violation) (replayed from \(pinned.path))"), sourceLocation: sourceLocation)
    }
    return judgement
}

/// What ``judgeOnTheWire(_:seeds:duration:shrinkAttempts:sourceLocation:)`` judged.
///
/// ```swift
/// let judgement = try judgeOnTheWire(mine, seeds: 0..<50)
/// #expect(judgement.failingSeeds[.wireOneSocket] == nil)
/// ```
public struct WireJudgement: Sendable {
    /// Runs judged (one when a trace was replayed).
    public var runs: Int
    /// Each broken rule, with the seeds that broke it, in order (at most the explorer's failure limit).
    public var failingSeeds: [Rule: [UInt64]] = [:]
    /// Seeds whose simulation did not finish (deadlocked, or stopped at the job limit).
    public var unfinished: [UInt64] = []
    /// The shrunk trace of each broken rule's first seed (the replayed run's, when replaying).
    public var traces: [Trace] = []

    /// Whether every rule held on every run.
    public var passed: Bool { failingSeeds.isEmpty && unfinished.isEmpty }
}
