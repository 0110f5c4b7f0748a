import Foundation
import LiveConnectionSimulator
public import Testing

import typealias LiveConnection.Mutex

/// A trait that turns a failing simulation test into a small, reproducible report: the
/// failing seeds, the first failure in full and shrunk, its trace, and the one line that
/// replays it.
///
/// ```swift
/// @Test(.simulation, arguments: try Seeds.range(0..<100))
/// func chatShowsEveryMessageOnce(seed: UInt64) throws {
///     let shown = try simulate(seed: seed) { world in … }
///     #expect(shown == sent)     // a failure here is reported, shrunk, with its replay line
/// }
/// ```
///
/// Each test case runs with a fresh ``SimulationRecorder`` that ``simulate(seed:strategy:timeLimit:configuration:name:_:)``
/// registers its runs with. When cases fail:
///
/// - The first case to fail is shown in full: its issues, each naming the seed and trace.
///   The issues, errors and attachments of the other failing cases are left out; their
///   seeds are in the summary (`LIVESIM_SEED=N` re-runs one of them in full).
/// - That case is **shrunk**: its last simulation's `perform` calls are cut down with the
///   ddmin `livesim explore` uses (`DeltaDebugging`), re-running the case's own code for
///   each candidate and keeping a candidate only if it fails in the same place (the same
///   expectation, or an error of the same type). The shrunk trace is attached as
///   `seed<N>.trace` (the original as `seed<N>-unshrunk.trace`) and written to
///   `.livesim/traces/<Suite>.<function>-seed<N>.trace`, a folder git ignores.
/// - When all cases are done, one issue sums up:
///   ```
///   simulation: 199 of 200 seeds failed (0 1 2 …); seed 0 in full, shrunk from 140 to 4 actions in 57 runs (…)
///   replay: LIVESIM_TRACE=.livesim/traces/ChatTests.showsEveryMessageOnce-seed0.trace swift test --filter 'ChatTests/showsEveryMessageOnce'
///   unshrunk: LIVESIM_SEED=0 swift test --filter 'ChatTests/showsEveryMessageOnce'
///   ```
///
/// `.simulation(shrinking: false)`, or `LIVESIM_SHRINK=0` in the environment, turns
/// shrinking off; replaying a trace (`LIVESIM_TRACE`) never shrinks. Which case fails first
/// depends on how the cases were scheduled; the summary lists every failing seed in order.
public struct SimulationTrait: TestTrait, SuiteTrait, TestScoping {
    public var isRecursive: Bool { true }

    /// The environment variable that turns shrinking off when it is `0`.
    public static let shrinkEnvironmentVariable = "LIVESIM_SHRINK"

    /// Whether the failure shown in full is shrunk.
    public var shrinks: Bool
    /// At most this many re-runs of the failing case while shrinking.
    public var shrinkAttempts: Int

    /// What a failing case's reports go to (tests of the trait replace it).
    let reporter: @Sendable (SimulationFailureReport) -> Void
    /// What the test's one summary goes to (by default an issue at the test's declaration).
    let summarize: @Sendable (String, Test) -> Void
    /// Where shrunk traces are written.
    let traceDirectory: String

    /// - Parameters:
    ///   - shrinking: whether to shrink the failure shown in full.
    ///   - shrinkAttempts: at most this many re-runs of the case while shrinking, 1 to 100,000.
    public init(shrinking: Bool = true, shrinkAttempts: Int = 300) {
        self.init(shrinking: shrinking, shrinkAttempts: shrinkAttempts, reporter: { $0.record(printing: false) })
    }

    init(
        shrinking: Bool = true, shrinkAttempts: Int = 300,
        reporter: @escaping @Sendable (SimulationFailureReport) -> Void,
        summarize: @escaping @Sendable (String, Test) -> Void = { text, test in
            Issue.record(Comment(rawValue: text), sourceLocation: test.sourceLocation)
        },
        traceDirectory: String = TraceLibrary.scratchDirectory
    ) {
        // A budget outside the range is a mistake in the test's code: clamp it rather than trap.
        self.shrinks = shrinking
        self.shrinkAttempts = min(max(shrinkAttempts, 1), 100_000)
        self.reporter = reporter
        self.summarize = summarize
        self.traceDirectory = traceDirectory
    }

    public func scopeProvider(for test: Test, testCase: Test.Case?) -> SimulationTrait? {
        // Around each case, and around all cases of a test function (for the summary).
        test.isSuite ? nil : self
    }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil else {
            let summary = SimulationSummary()
            defer { summary.text(for: test).map { summarize($0, test) } }
            try await SimulationSummary.$current.withValue(summary) { try await function() }
            return
        }
        let recorder = SimulationRecorder()
        let summary = SimulationSummary.current
        let first = FirstFailure()
        let annotate = IssueHandlingTrait.compactMapIssues { issue in
            guard issue.isFailure else { return issue }
            first.note(FailureSignature(issue))
            // A case that simulated nothing (yet) is not the summary's: its issues stay.
            guard !recorder.entries.isEmpty else { return issue }
            // Only the case shown in full keeps its issues; the others are seeds in the summary.
            guard summary?.claimDetail(for: recorder) ?? true else { return nil }
            var issue = issue
            for entry in recorder.entries {
                issue.comments.append(
                    Comment(rawValue: SimulationFailureReport(seed: entry.seed, trace: entry.trace).issueComment))
            }
            return issue
        }
        var thrown: (any Error)?
        do {
            try await SimulationRecorder.$current.withValue(recorder) {
                try await annotate.provideScope(for: test, testCase: testCase, performing: function)
            }
        } catch {
            first.note(FailureSignature(error))
            thrown = error
        }
        let entries = recorder.entries
        summary?.add(seeds: entries.map(\.seed), failed: first.signature != nil)
        guard let signature = first.signature else { return }
        guard !entries.isEmpty else {
            // No seed to name, nothing to shrink: the failure is reported as it is.
            if let thrown { throw thrown }
            return
        }
        guard summary?.claimDetail(for: recorder) ?? true else {
            // Not shown in full: its seed is in the summary (and `LIVESIM_SEED` re-runs it
            // with its trace attached); its issues, error and attachments are left out.
            return
        }
        let shrunk = await shrinkIfWanted(
            entries, signature: signature, test: test, testCase: testCase, function: function)
        for (index, entry) in entries.enumerated() {
            if let shrunk, index == entries.count - 1 {
                reporter(SimulationFailureReport(seed: entry.seed, trace: shrunk.trace, original: shrunk.original))
            } else {
                reporter(SimulationFailureReport(seed: entry.seed, trace: entry.trace))
            }
        }
        let saved = shrunk.map(save)
        summary?.setDetail(
            SimulationSummary.Detail(seeds: shrunk.map { [$0.seed] } ?? entries.map(\.seed), shrunk: saved))
        if let thrown { throw thrown }
    }

    /// Shrinks the case's last simulation (the one its verdict most likely read), unless
    /// shrinking is off, a trace is being replayed, or there is nothing to shrink.
    private func shrinkIfWanted(
        _ entries: [SimulationRecorder.Entry], signature: FailureSignature, test: Test, testCase: Test.Case?,
        function: @Sendable () async throws -> Void
    ) async -> CaseShrinking.Shrunk? {
        let environment = ProcessInfo.processInfo.environment
        guard shrinks, environment[Self.shrinkEnvironmentVariable] != "0",
            environment[PinnedTrace.environmentVariable] == nil, let last = entries.last
        else { return nil }
        // The case's function is only called from inside this scope: the shrinker does not keep it.
        return await withoutActuallyEscaping(function) { function in
            let shrinking = CaseShrinking(
                test: test, testCase: testCase, function: function, signature: signature,
                simulation: entries.count - 1, budget: shrinkAttempts)
            return await shrinking.shrink(last)
        }
    }

    /// Writes the shrunk trace where the replay line can find it, and says what it cost.
    private func save(_ shrunk: CaseShrinking.Shrunk) -> ShrinkReport {
        var report = ShrinkReport(
            seed: shrunk.seed, from: shrunk.original.scenario.schedule.count, to: shrunk.trace.scenario.schedule.count,
            attempts: shrunk.attempts, budgetExhausted: shrunk.budgetExhausted)
        let test = (shrunk.trace.test ?? "simulate").replacingOccurrences(of: "/", with: ".")
        let name = "\(test)-seed\(shrunk.seed).trace"
        do {
            try TraceLibrary(directory: URL(fileURLWithPath: traceDirectory)).write(shrunk.trace, named: name)
            report.path = (traceDirectory as NSString).appendingPathComponent(name)
        } catch {
            report.writeError = "\(error)"
        }
        return report
    }
}

/// The first way a case failed (issues can come from several threads).
private final class FirstFailure: Sendable {
    private let value = Mutex<FailureSignature?>(nil)
    func note(_ signature: FailureSignature) { value.withLock { $0 = $0 ?? signature } }
    var signature: FailureSignature? { value.withLock { $0 } }
}

extension Trait where Self == SimulationTrait {
    /// Reports, shrinks and gives the replay line of a failing simulation test.
    public static var simulation: SimulationTrait { SimulationTrait() }

    /// The same, with shrinking switched on or off and its budget of re-runs.
    ///
    /// ```swift
    /// @Test(.simulation(shrinking: false), arguments: try Seeds.range(0..<100))
    /// ```
    public static func simulation(shrinking: Bool, shrinkAttempts: Int = 300) -> SimulationTrait {
        SimulationTrait(shrinking: shrinking, shrinkAttempts: shrinkAttempts)
    }
}
