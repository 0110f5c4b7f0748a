import SimulationKernel

/// The instants of the last minute (or any window), added in time order: a count that costs
/// O(1) amortized per instant, where filtering the whole list each time cost O(n) — a hot
/// loop of a real client (600 attempts a second) keeps tens of thousands in one window.
struct RecentInstants {
    private var instants: [VirtualClock.Instant] = []
    /// The first instant still inside the window.
    private var start = 0

    /// Adds `now` (never before the last one added) and forgets what is older than `window` before it.
    mutating func add(_ now: VirtualClock.Instant, window: Duration) {
        instants.append(now)
        let cutoff = now - window
        while start < instants.count, instants[start] < cutoff { start += 1 }
        // Let go of the forgotten ones now and then, not at every step.
        if start > 1024, start * 2 > instants.count {
            instants.removeFirst(start)
            start = 0
        }
    }

    /// How many are inside the window.
    var count: Int { instants.count - start }
}
