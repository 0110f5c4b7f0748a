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
/// `#require`, a thrown error), every issue gets a comment naming the seeds and the replay
/// command, and after the body the trace of each run is attached (saved by
/// `swift test --attachments-path DIR`) and the replay line printed.
public struct SimulationTrait: TestTrait, SuiteTrait, TestScoping {
    public var isRecursive: Bool { true }

    /// What a failing case's reports go to (tests of the trait replace it).
    let reporter: @Sendable (SimulationFailureReport) -> Void

    public init() { reporter = { $0.record() } }

    init(reporter: @escaping @Sendable (SimulationFailureReport) -> Void) { self.reporter = reporter }

    public func scopeProvider(for test: Test, testCase: Test.Case?) -> SimulationTrait? {
        testCase == nil ? nil : self
    }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let recorder = SimulationRecorder()
        let failed = FailureFlag()
        let annotate = IssueHandlingTrait.compactMapIssues { issue in
            guard issue.isFailure else { return issue }
            failed.set()
            var issue = issue
            for entry in recorder.entries {
                issue.comments.append(
                    Comment(rawValue: SimulationFailureReport(seed: entry.seed, trace: entry.trace).summary))
            }
            return issue
        }
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
