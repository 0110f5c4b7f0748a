import Foundation
import Synchronization

import typealias LiveConnection.Mutex

/// The worker loop every explorer shares: a few threads take the next seed from one
/// counter, each runs it and folds the verdict into a summary of its own, and the
/// summaries are merged at the end.
///
/// ```swift
/// let summary = SeedWorkers(seeds: 0..<1_000, threads: 2).run(
///     start: { ExplorationSummary(variant: "correct") },
///     seed: { seed, summary in summary.add(…); return passed },
///     merge: { $0.merged(with: $1, failureLimit: 100) })
/// ```
///
/// Which thread ran which seed must not matter, so `merge` is expected to be a sum (and to
/// keep failures sorted by seed): then the merged summary is the same for any number of
/// threads. Each seed runs synchronously on its worker thread (a simulation drives its own
/// executor there), so the threads get a deep stack.
public struct SeedWorkers: Sendable {
    public var seeds: Range<UInt64>
    /// Worker threads, at least one and at most one per seed.
    public var threads: Int

    public init(seeds: Range<UInt64>, threads: Int) {
        self.seeds = seeds
        self.threads = min(max(1, threads), max(1, seeds.count))
    }

    /// Runs `seed` for every seed; it folds its run into the thread's summary and says
    /// whether the run passed. `progress` is called from the worker threads after each run
    /// with the runs finished and the failures so far.
    public func run<Summary: Sendable>(
        start: @escaping @Sendable () -> Summary,
        seed runSeed: @escaping @Sendable (_ seed: UInt64, _ summary: inout Summary) -> Bool,
        merge: (Summary, Summary) -> Summary,
        progress: (@Sendable (_ finished: Int, _ failed: Int) -> Void)? = nil
    ) -> Summary {
        let next = Atomic<UInt64>(seeds.lowerBound)
        let finished = Atomic<Int>(0)
        let failed = Atomic<Int>(0)
        let results = Mutex<[Summary]>([])
        let done = DispatchSemaphore(value: 0)
        let end = seeds.upperBound
        for _ in 0..<threads {
            let thread = Thread {
                var summary = start()
                while true {
                    let seed = next.add(1, ordering: .relaxed).oldValue
                    guard seed < end else { break }
                    let passed = runSeed(seed, &summary)
                    let failures = passed ? failed.load(ordering: .relaxed) : failed.add(1, ordering: .relaxed).newValue
                    progress?(finished.add(1, ordering: .relaxed).newValue, failures)
                }
                results.withLock { [summary] in $0.append(summary) }
                done.signal()
            }
            // Deep async call chains run synchronously on this thread: give it room.
            thread.stackSize = 16 << 20
            thread.start()
        }
        for _ in 0..<threads { done.wait() }
        return results.withLock { $0.reduce(start(), merge) }
    }
}
