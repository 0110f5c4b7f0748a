public import Testing

/// A trait that turns a failing simulation test into a reproducible report: the seed, the
/// trace as an attachment, and the one line that re-runs it.
///
/// ```swift
/// @Test(.simulation, arguments: try Seeds.range(0..<100))
/// func chatShowsEveryMessageOnce(seed: UInt64) throws {
///     let shown = try simulate(seed: seed) { world in … }
///     #expect(shown == sent)     // a failure here also reports seed, trace and replay line
/// }
/// ```
///
/// Each test case runs with a fresh ``SimulationRecorder`` that ``simulate(seed:strategy:timeLimit:configuration:name:_:)``
/// registers its runs with. If the case records a failing issue (an `#expect`, a
/// `#require`, a thrown error), every issue gets a comment naming the seeds and their
/// trace attachments, and after the body the trace of each run is attached (saved by
/// `swift test --attachments-path DIR`). When all cases of the test are done, one line
/// sums up: `159 of 200 seeds failed; first: seed 1; replay: LIVESIM_SEED=1 swift test --filter …`.
/// Running that replay line (`LIVESIM_SEED` set) also prints the failing run's timeline.
public struct SimulationTrait: TestTrait, SuiteTrait, TestScoping {
    public var isRecursive: Bool { true }

    /// What a failing case's reports go to (tests of the trait replace it).
    let reporter: @Sendable (SimulationFailureReport) -> Void
    /// What the test's one summary line goes to.
    let summarize: @Sendable (String) -> Void

    public init() {
        reporter = { $0.record(printing: false) }
        summarize = { SimulationFailureReport.printLine("simulation: " + $0) }
    }

    init(
        reporter: @escaping @Sendable (SimulationFailureReport) -> Void,
        summarize: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.reporter = reporter
        self.summarize = summarize
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
            defer { summary.line(for: test).map(summarize) }
            try await SimulationSummary.$current.withValue(summary) { try await function() }
            return
        }
        let recorder = SimulationRecorder()
        let failed = FailureFlag()
        let annotate = IssueHandlingTrait.compactMapIssues { issue in
            guard issue.isFailure else { return issue }
            failed.set()
            var issue = issue
            for entry in recorder.entries {
                // The replay line is printed once, in the test's summary; each issue names its seed.
                issue.comments.append(
                    Comment(rawValue: SimulationFailureReport(seed: entry.seed, trace: entry.trace).issueComment))
            }
            return issue
        }
        defer { SimulationSummary.current?.add(seeds: recorder.entries.map(\.seed), failed: failed.isSet) }
        do {
            try await SimulationRecorder.$current.withValue(recorder) {
                try await annotate.provideScope(for: test, testCase: testCase, performing: function)
            }
        } catch {
            failed.set()
            report(recorder)
            throw error
        }
        if failed.isSet { report(recorder) }
    }

    private func report(_ recorder: SimulationRecorder) {
        for entry in recorder.entries {
            reporter(SimulationFailureReport(seed: entry.seed, trace: entry.trace))
        }
    }
}

extension Trait where Self == SimulationTrait {
    /// Reports the seed, the trace and the replay line of every simulation in a failing test.
    public static var simulation: SimulationTrait { SimulationTrait() }
}
