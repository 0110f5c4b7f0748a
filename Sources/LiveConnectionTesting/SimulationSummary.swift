import Testing

import typealias LiveConnection.Mutex

/// The seeds a test's cases simulated, the ones that failed, and the one failure shown in
/// full, so that a parameterized test reports one summary with one replay line instead of
/// every failing seed's detail.
///
/// ```swift
/// // Installed by the `.simulation` trait around all cases of a test:
/// summary.claimDetail(for: recorder)       // true for the first case that fails
/// summary.add(seeds: [3], failed: true)
/// summary.text(for: test)
/// // "simulation: 1 of 200 seeds failed (3); seed 3 in full, shrunk from 140 to 4 actions in 57 runs …"
/// ```
final class SimulationSummary: Sendable {
    /// The summary of the test whose cases run in this task, if the trait installed one.
    @TaskLocal static var current: SimulationSummary?

    /// How many failing seeds the summary lists before "…".
    static let seedsListed = 20

    /// The failure shown in full: its seeds, and what shrinking made of it.
    struct Detail: Sendable {
        var seeds: [UInt64]
        var shrunk: ShrinkReport?
    }

    private struct State {
        var seeds: Set<UInt64> = []
        var failed: Set<UInt64> = []
        /// The case whose issues are shown in full (the first to fail), by an object of
        /// its recorder; held, so that no later case's recorder can take its address.
        var detailCase: SimulationRecorder?
        var detail: Detail?
    }

    private let state = Mutex(State())

    /// Whether the case `token` is the one shown in full: the first case to ask after it
    /// failed is, every later one is not (its issues become a seed in the summary).
    func claimDetail(for token: SimulationRecorder) -> Bool {
        state.withLock {
            if $0.detailCase == nil { $0.detailCase = token }
            return $0.detailCase === token
        }
    }

    /// Notes the seeds one case simulated, and whether the case failed.
    func add(seeds: [UInt64], failed: Bool) {
        state.withLock {
            $0.seeds.formUnion(seeds)
            if failed { $0.failed.formUnion(seeds) }
        }
    }

    /// Notes what the case shown in full ran and what shrinking made of it.
    func setDetail(_ detail: Detail) {
        state.withLock { $0.detail = detail }
    }

    /// The summary for the test log, or nil when nothing failed: the failing seeds (in
    /// order, so the text is the same whichever case finished first), which one is shown
    /// in full, what shrinking made of it, and the one line that replays it.
    func text(for test: Test?) -> String? {
        state.withLock { state in
            guard let smallest = state.failed.min() else { return nil }
            let failing = state.failed.sorted()
            let noun = state.seeds.count == 1 ? "seed" : "seeds"
            var listed = failing.prefix(Self.seedsListed).map(String.init).joined(separator: " ")
            if failing.count > Self.seedsListed { listed += " …" }
            let shown = state.detail?.seeds.first ?? smallest
            var lines = [
                "simulation: \(state.failed.count) of \(state.seeds.count) \(noun) failed (\(listed)); seed \(shown) in full"
            ]
            // Replaying a trace, the line to run again is the same trace's.
            let pinned = (try? PinnedTrace.current.get()) ?? nil
            let bySeed = ReplayCommand(seed: shown, tracePath: pinned?.path, test: test)
            if let shrunk = state.detail?.shrunk {
                lines[0] += ", " + shrunk.description
                if let path = shrunk.path {
                    lines.append("replay: \(ReplayCommand(seed: shown, tracePath: path, test: test))")
                    lines.append("unshrunk: \(bySeed)")
                    return lines.joined(separator: "\n")
                }
            }
            lines[0] += "; replay: \(bySeed)"
            return lines.joined(separator: "\n")
        }
    }
}

/// What shrinking made of the failure shown in full, for the summary.
///
/// ```swift
/// ShrinkReport(seed: 3, from: 140, to: 4, attempts: 57, budgetExhausted: false, path: ".livesim/traces/T-seed3.trace").description
/// // "shrunk from 140 to 4 actions in 57 runs (.livesim/traces/T-seed3.trace, attached as seed3.trace)"
/// ```
struct ShrinkReport: Sendable, CustomStringConvertible {
    var seed: UInt64
    var from: Int
    var to: Int
    var attempts: Int
    var budgetExhausted: Bool
    /// Where the shrunk trace was written, if it could be.
    var path: String?
    /// Why it could not be written.
    var writeError: String?

    var description: String {
        var text = "shrunk from \(from) to \(to) actions in \(attempts) runs"
        if budgetExhausted { text += " (the budget ran out: maybe not minimal)" }
        if let path { text += " (\(path), attached as seed\(seed).trace)" }
        if let writeError { text += " (attached as seed\(seed).trace; not written: \(writeError))" }
        return text
    }
}
