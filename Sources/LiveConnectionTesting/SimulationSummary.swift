import Synchronization
import Testing

/// The seeds a test's cases simulated and the ones that failed, so that a parameterized
/// test prints one summary with one replay line instead of one per failing seed.
///
/// ```swift
/// // Installed by the `.simulation` trait around all cases of a test:
/// summary.add(seeds: [3], failed: true)
/// summary.line(for: test)   // "1 of 200 seeds failed; first: seed 3; replay: LIVESIM_SEED=3 swift test --filter …"
/// ```
final class SimulationSummary: Sendable {
    /// The summary of the test whose cases run in this task, if the trait installed one.
    @TaskLocal static var current: SimulationSummary?

    private struct Counts {
        var seeds: Set<UInt64> = []
        var failed: Set<UInt64> = []
    }

    private let counts = Mutex(Counts())

    /// Notes the seeds one case simulated, and whether the case failed.
    func add(seeds: [UInt64], failed: Bool) {
        counts.withLock {
            $0.seeds.formUnion(seeds)
            if failed { $0.failed.formUnion(seeds) }
        }
    }

    /// The one line for the test log, or nil when nothing failed.
    ///
    /// "First" is the smallest failing seed, whatever order the cases finished in, so the
    /// line is the same on every run.
    func line(for test: Test?) -> String? {
        counts.withLock { counts in
            guard let first = counts.failed.min() else { return nil }
            let noun = counts.seeds.count == 1 ? "seed" : "seeds"
            return "\(counts.failed.count) of \(counts.seeds.count) \(noun) failed; first: seed \(first); "
                + "replay: \(ReplayCommand(seed: first, test: test))"
        }
    }
}
