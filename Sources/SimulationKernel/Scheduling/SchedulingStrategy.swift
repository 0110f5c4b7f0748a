import LiveConnection

/// Chooses which ready job a ``SimulationExecutor`` runs next.
///
/// ```swift
/// var strategy: some SchedulingStrategy = .random(seed: 7)
/// let index = strategy.pick(readyCount: 3)  // 0, 1 or 2, the same for seed 7 every time
/// ```
///
/// The contract with the executor, which strategies may rely on to keep per-job state:
/// the ready jobs are indexed in arrival order; `pick` is called before *every* job runs,
/// even when only one is ready; the picked job is removed and the others keep their
/// order; jobs that arrive later are appended. So a strategy can mirror the ready list
/// (``PCTScheduling`` keeps a priority per ready job this way).
///
/// A strategy is a value: copying it snapshots its random state, which is what a
/// systematic explorer needs to replay a prefix of choices and branch.
public protocol SchedulingStrategy {
    /// The index, in `0..<readyCount`, of the job to run next. `readyCount` is at least 1.
    mutating func pick(readyCount: Int) -> Int
}

/// Runs jobs in arrival order: the behaviour of a plain serial queue.
///
/// ```swift
/// Simulation.run(strategy: .fifo, clock: clock) { … }
/// ```
public struct FIFOScheduling: SchedulingStrategy, Sendable {
    public init() {}

    @inline(__always)
    public mutating func pick(readyCount: Int) -> Int { 0 }
}

/// Picks uniformly among the ready jobs with a seeded Xoshiro256** stream.
///
/// ```swift
/// Simulation.run(strategy: .random(seed: 42), clock: clock) { … }
/// ```
///
/// A single ready job is run without drawing, so the random stream is spent only on
/// real choices and a seed's schedule does not shift when unrelated code adds a hop
/// that has no alternative.
public struct RandomScheduling: SchedulingStrategy, Sendable {
    private var random: Xoshiro256StarStar

    /// A strategy whose choices are the seed's Xoshiro256** stream, mapped by Lemire's method.
    public init(seed: UInt64) {
        random = Xoshiro256StarStar(seed: seed)
    }

    public mutating func pick(readyCount: Int) -> Int {
        guard readyCount > 1 else { return 0 }
        return Int(truncatingIfNeeded: random.uniform(below: UInt64(readyCount)))
    }
}

extension SchedulingStrategy where Self == FIFOScheduling {
    /// Arrival order. See ``FIFOScheduling``.
    public static var fifo: FIFOScheduling { FIFOScheduling() }
}

extension SchedulingStrategy where Self == RandomScheduling {
    /// Uniformly random among the ready jobs. See ``RandomScheduling``.
    public static func random(seed: UInt64) -> RandomScheduling { RandomScheduling(seed: seed) }
}

extension SchedulingStrategy where Self == PCTScheduling {
    /// Probabilistic concurrency testing. See ``PCTScheduling``.
    public static func pct(seed: UInt64, depth: Int, expectedSteps: Int = PCTScheduling.defaultExpectedSteps)
        -> PCTScheduling
    {
        PCTScheduling(seed: seed, depth: depth, expectedSteps: expectedSteps)
    }
}
