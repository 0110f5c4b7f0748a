public import LiveConnection

/// One recorded backoff delay: which run it belongs to, after how many failures, and the
/// delay before it in the same run.
///
/// ```swift
/// let observation = DelayObservation(run: 0, attempt: 2, delay: .milliseconds(1340), previous: .milliseconds(800))
/// Specification.seedDocuments.publishedDelay(policy, afterFailures: observation.attempt,
///                                             previous: observation.previous)  // what it is judged by
/// ```
///
/// A *run* is one client's sequence of consecutive failures (one reconnect episode).
/// `previous` matters only to decorrelated jitter, whose next delay is drawn relative to
/// the last one; runs let the independence tests compare clients with each other.
public struct DelayObservation: Hashable, Sendable {
    /// Which run (client, reconnect episode) the delay belongs to.
    public var run: Int
    /// Consecutive failures before this delay (1 for the first retry).
    public var attempt: Int
    /// The delay waited before the next attempt.
    public var delay: Duration
    /// The delay before this one in the same run, if recorded.
    public var previous: Duration?

    /// One observation.
    public init(run: Int, attempt: Int, delay: Duration, previous: Duration? = nil) {
        self.run = run
        self.attempt = attempt
        self.delay = delay
        self.previous = previous
    }
}

extension BackoffPolicy {
    /// Draws `runs` independent runs of `attempts` consecutive delays each (attempts
    /// 1…`attempts`), the way a fleet of clients would see them.
    ///
    /// Every run gets its own generator, seeded from `seed` and the run index through
    /// SplitMix64, so runs are independent and a seed reproduces the whole sample.
    public func observations(runs: Int, attempts: ClosedRange<Int>, seed: UInt64) -> [DelayObservation] {
        var result: [DelayObservation] = []
        result.reserveCapacity(runs * attempts.count)
        var seeds = SplitMix64(seed: seed)
        for run in 0..<runs {
            var random = Xoshiro256StarStar(seed: seeds.nextWord())
            var previous: Duration?
            for attempt in 1...attempts.upperBound {
                let delay = self.delay(afterFailures: attempt, previous: previous, using: &random)
                if attempts.contains(attempt) {
                    result.append(DelayObservation(run: run, attempt: attempt, delay: delay, previous: previous))
                }
                previous = delay
            }
        }
        return result
    }
}
