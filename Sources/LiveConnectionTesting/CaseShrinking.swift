import Foundation
import LiveConnectionSimulator
import Synchronization
import Testing

/// Shrinks one failing test case: the ddmin `livesim explore` uses (`DeltaDebugging`), over
/// the numbers of the `perform` calls of one of its simulations, each candidate judged by
/// running the case's own code again with only those calls kept and asking whether it
/// fails the same way (``FailureSignature``).
///
/// ```swift
/// let shrinking = CaseShrinking(test: test, testCase: testCase, function: function,
///                               signature: signature, simulation: 0, budget: 300)
/// if let shrunk = await shrinking.shrink(entry) { print(shrunk.trace.scenario.schedule.count) }
/// ```
///
/// A candidate's issues are dropped (they are not the test's verdict) and its traces
/// are not attached; only the smallest failing candidate's trace is kept.
struct CaseShrinking: Sendable {
    let test: Test
    let testCase: Test.Case?
    let function: @Sendable () async throws -> Void
    let signature: FailureSignature
    /// Which simulation of the case to shrink (by the order it ran them).
    let simulation: Int
    /// At most this many re-runs.
    let budget: Int

    /// What shrinking made of a failing simulation.
    struct Shrunk: Sendable {
        var seed: UInt64
        /// The smallest failing run's trace (with `kept-performs:`).
        var trace: Trace
        /// The run as it failed first.
        var original: Trace
        /// Re-runs of the case it took.
        var attempts: Int
        /// Whether the budget ran out first (the result may then not be 1-minimal).
        var budgetExhausted: Bool
    }

    /// Shrinks `entry` (the case's simulation number ``simulation``); nil when there is
    /// nothing to take away or no smaller run fails the same way.
    func shrink(_ entry: SimulationRecorder.Entry) async -> Shrunk? {
        guard !entry.performed.isEmpty else { return nil }
        var search = DeltaDebugging(entry.performed)
        var verdicts: [[Int]: Bool] = [:]
        var traces: [[Int]: Trace] = [:]
        var attempts = 0
        while let candidate = search.nextCandidate() {
            let fails: Bool
            if let known = verdicts[candidate] {
                fails = known
            } else if attempts >= budget {
                fails = false  // not affordable: not taken, as ddmin takes nothing it has not seen fail
            } else {
                attempts += 1
                let (failed, trace) = await run(keeping: candidate)
                verdicts[candidate] = failed
                if failed, let trace { traces[candidate] = trace }
                fails = failed
            }
            search.record(fails: fails, budgetSpent: attempts >= budget)
        }
        guard search.current != entry.performed, let trace = traces[search.current] else { return nil }
        return Shrunk(
            seed: entry.seed, trace: trace, original: entry.trace, attempts: attempts,
            budgetExhausted: attempts >= budget)
    }

    /// Runs the case once with only `kept` performed; whether it failed the same way, and
    /// the trace of the simulation being shrunk.
    private func run(keeping kept: [Int]) async -> (Bool, Trace?) {
        let failed = FailureFlag()
        let signature = signature
        let silence = IssueHandlingTrait.compactMapIssues { issue in
            if issue.isFailure, FailureSignature(issue) == signature { failed.set() }
            return nil
        }
        let recorder = SimulationRecorder()
        let candidate = ShrinkCandidate(simulation: simulation, keptPerforms: Set(kept))
        do {
            try await SimulationRecorder.$current.withValue(recorder) {
                try await ShrinkCandidate.$current.withValue(candidate) {
                    try await silence.provideScope(for: test, testCase: testCase, performing: function)
                }
            }
        } catch {
            if FailureSignature(error) == signature { failed.set() }
        }
        let entries = recorder.entries
        return (failed.isSet, simulation < entries.count ? entries[simulation].trace : nil)
    }
}
