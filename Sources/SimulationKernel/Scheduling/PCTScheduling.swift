import LiveConnection

/// Probabilistic concurrency testing (Burckhardt, Kothari, Musuvathi, Nagarakatte 2010)
/// over the jobs of a ``SimulationExecutor``.
///
/// ```swift
/// Simulation.run(strategy: .pct(seed: 3, depth: 3), clock: clock) { … }
/// ```
///
/// Every job gets a random priority when it becomes ready; the executor always runs the
/// ready job with the highest priority. At `depth − 1` change points, steps drawn
/// uniformly from `1...expectedSteps`, the job that would have run is instead demoted
/// below every initial priority, so it waits until nothing else is ready. That forces the
/// few late orderings that bugs of depth `d` need, with a probability the paper bounds
/// from below, where uniform random scheduling spreads its chances thin.
///
/// One departure from the paper, stated plainly: PCT gives priorities to *threads*, and
/// a thread keeps its priority across steps. An executor sees jobs, not tasks (a task that
/// suspends and resumes arrives as a new job, and the runtime offers no stable, per-run
/// task identity without parsing `ExecutorJob.description`), so here each arrival draws a
/// fresh priority. The change points still delay a chosen job behind all others; the
/// paper's probability bound is not claimed.
public struct PCTScheduling: SchedulingStrategy, Sendable {
    /// The schedule length the change points are spread over when none is given.
    public static let defaultExpectedSteps = 10_000

    private var random: Xoshiro256StarStar
    private let depth: Int
    /// Steps (1-based) at which the would-be job is demoted, ascending.
    private let changePoints: [Int]
    private var nextChangePoint = 0
    /// One priority per ready job, in the executor's arrival order.
    private var priorities: [UInt64] = []
    private var step = 0

    /// A PCT strategy for bugs of the given depth (≥ 1; depth 1 has no change points).
    public init(seed: UInt64, depth: Int, expectedSteps: Int = PCTScheduling.defaultExpectedSteps) {
        precondition(depth >= 1, "PCT depth must be at least 1, got \(depth)")
        precondition(expectedSteps >= 1, "PCT expectedSteps must be at least 1, got \(expectedSteps)")
        var random = Xoshiro256StarStar(seed: seed)
        self.changePoints = (1..<depth)
            .map { _ in 1 + Int(truncatingIfNeeded: random.uniform(below: UInt64(expectedSteps))) }
            .sorted()
        self.random = random
        self.depth = depth
    }

    public mutating func pick(readyCount: Int) -> Int {
        precondition(
            readyCount >= priorities.count,
            "PCT lost track of the ready list: \(priorities.count) known jobs, executor reports \(readyCount)")
        // New arrivals since the last pick: priorities in [depth, UInt64.max), all above
        // the demoted ones (1..<depth).
        while priorities.count < readyCount {
            priorities.append(UInt64(depth) + random.uniform(below: UInt64.max - UInt64(depth)))
        }
        step += 1
        var chosen = indexOfHighestPriority()
        while nextChangePoint < changePoints.count, changePoints[nextChangePoint] == step {
            nextChangePoint += 1
            // The i-th change point demotes to priority depth − i: lower than every
            // initial priority and lower than earlier demotions.
            priorities[chosen] = UInt64(depth - nextChangePoint)
            chosen = indexOfHighestPriority()
        }
        priorities.remove(at: chosen)
        return chosen
    }

    /// Ties (vanishingly rare with 64-bit draws, certain among demoted jobs) go to the earliest arrival.
    private func indexOfHighestPriority() -> Int {
        var best = 0
        for index in priorities.indices.dropFirst() where priorities[index] > priorities[best] {
            best = index
        }
        return best
    }
}
