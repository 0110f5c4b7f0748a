import Foundation
public import LiveConnectionRules
public import LiveConnectionTraces

/// Runs many seeds in parallel, one synchronous simulation per thread at a time, and adds
/// up what they did and found.
///
/// ```swift
/// let explorer = Explorer(seeds: 0..<1_000, generator: ScenarioGenerator(duration: .seconds(3600)),
///                         variant: .correct, threads: 2)
/// let summary = explorer.run()
/// for failure in summary.failures { print(failure.seed, failure.violations[0]) }
/// ```
///
/// Each worker thread (``SeedWorkers``) takes the next seed from a shared counter,
/// generates its scenario, runs it without a log, and folds the result into its own
/// ``ExplorationSummary``; the summaries are merged at the end. Which thread ran which seed does not matter: every
/// figure is a sum and failures are sorted by seed, so the summary is the same for any
/// number of threads. Nothing but counters is kept per run, so memory does not grow with
/// the number of seeds.
public struct Explorer: Sendable {
    public var seeds: Range<UInt64>
    public var generator: ScenarioGenerator
    public var variant: LogicVariant
    public var threads: Int
    /// Keep at most this many failures (the first by seed) in the summary.
    public var failureLimit: Int
    /// Run every seed twice, each with its full log, and count a seed whose two logs differ
    /// by a single byte as a failure (the simulator's promise: same seed, same bytes).
    public var checksDeterminism: Bool

    public init(
        seeds: Range<UInt64>, generator: ScenarioGenerator = ScenarioGenerator(), variant: LogicVariant = .correct,
        threads: Int? = nil, failureLimit: Int = 100, checksDeterminism: Bool = false
    ) {
        self.seeds = seeds
        self.generator = generator
        self.variant = variant
        self.threads = max(1, threads ?? Self.processorCount)
        self.failureLimit = failureLimit
        self.checksDeterminism = checksDeterminism
    }

    /// The cores this process may use.
    public static var processorCount: Int { ProcessInfo.processInfo.activeProcessorCount }

    /// Runs every seed; `progress` is called from worker threads after each run with the
    /// number of runs finished and the failures so far.
    public func run(progress: (@Sendable (_ finished: Int, _ failed: Int) -> Void)? = nil) -> ExplorationSummary {
        let (variant, generator, failureLimit, checksDeterminism) = (
            variant, generator, failureLimit, checksDeterminism
        )
        return SeedWorkers(seeds: seeds, threads: threads).run(
            start: { ExplorationSummary(variant: variant.name) },
            seed: { seed, summary in
                let scenario = generator.scenario(seed: seed)
                let result = SimulationRun(scenario, variant: variant, recordsLog: checksDeterminism).run()
                let divergence =
                    checksDeterminism
                    ? Self.divergence(result, SimulationRun(scenario, variant: variant, recordsLog: true).run()) : nil
                summary.add(result, divergence: divergence, failureLimit: failureLimit)
                return result.passed && divergence == nil
            },
            merge: { $0.merged(with: $1, failureLimit: failureLimit) },
            progress: progress)
    }
}

extension Explorer {
    /// The `index`-th (from 0) of `count` contiguous parts of `seeds`: the parts differ in
    /// size by at most one seed and together cover `seeds` exactly once, so shards run on
    /// many machines and merged (``ExplorationReport/merge(_:)``) equal one run.
    public static func shard(_ index: UInt64, of count: UInt64, seeds: Range<UInt64>) -> Range<UInt64> {
        precondition(count > 0 && index < count, "shard \(index) of \(count)")
        let total = UInt64(seeds.count)
        let size = total / count, extra = total % count
        let start = seeds.lowerBound + index * size + min(index, extra)
        return start..<(start + size + (index < extra ? 1 : 0))
    }

    /// Where two runs of the same scenario first differ (nil if their logs and counters
    /// are identical): the first differing log line, numbered from 1.
    public static func divergence(_ first: RunResult, _ second: RunResult) -> String? {
        for (number, (a, b)) in zip(first.log, second.log).enumerated() where a != b {
            return "log line \(number + 1) differs: \"\(a.prefix(200))\" then \"\(b.prefix(200))\""
        }
        if first.log.count != second.log.count {
            return "the logs have \(first.log.count) and \(second.log.count) lines"
        }
        if first.jobsRun != second.jobsRun || first.invariantChecks != second.invariantChecks
            || first.inputs != second.inputs
        {
            return
                "same log, but \(first.jobsRun)/\(second.jobsRun) jobs, \(first.invariantChecks)/\(second.invariantChecks) checks, "
                + "\(first.inputs)/\(second.inputs) inputs"
        }
        return nil
    }
}

/// What an exploration did and found, summed over its runs.
///
/// ```swift
/// print(summary.runs, summary.simulatedTime, summary.faults[.reset])
/// for (invariant, runs) in summary.violatingRuns where runs > 0 { print(invariant, runs) }
/// ```
public struct ExplorationSummary: Sendable {
    /// One failing seed and what it broke.
    public struct Failure: Sendable {
        public var seed: UInt64
        public var violations: [Violation]
        public var deadlocked: Bool
        /// With ``Explorer/checksDeterminism``: where the seed's two runs differed.
        public var divergence: String?
    }

    public var variant: String
    public var runs = 0
    public var simulatedTime: Duration = .zero
    public var faults = FaultCounts()
    public var invariantChecks = 0
    public var jobsRun = 0
    public var inputs = 0
    /// Runs that violated each invariant, in `Rule.invariants` order.
    public var violatingRuns: [(invariant: Rule, runs: Int)] = Rule.invariants.map { ($0, 0) }
    public var deadlocks = 0
    /// Seeds whose two runs differed (only counted with ``Explorer/checksDeterminism``).
    public var divergentRuns = 0
    /// Failing runs (at most the limit), by seed.
    public var failures: [Failure] = []
    /// Failing runs, counted even beyond the limit.
    public var failureCount = 0
    /// Every run's retry delays, for `backoff-distribution` (judged over all the runs).
    public var delayPool = BackoffDelayPool()

    public init(variant: String) { self.variant = variant }

    mutating func add(_ result: RunResult, divergence: String? = nil, failureLimit: Int) {
        runs += 1
        simulatedTime += result.simulatedTime
        faults = faults + result.faults
        invariantChecks += result.invariantChecks
        jobsRun += result.jobsRun
        inputs += result.inputs
        delayPool.merge(result.delayPool)
        for index in violatingRuns.indices where result.violationCounts[index].count > 0 {
            violatingRuns[index].runs += 1
        }
        if result.deadlocked { deadlocks += 1 }
        if divergence != nil { divergentRuns += 1 }
        if !result.passed || divergence != nil {
            failureCount += 1
            failures.append(
                Failure(
                    seed: result.seed, violations: result.violations, deadlocked: result.deadlocked,
                    divergence: divergence))
            failures.sort { $0.seed < $1.seed }
            if failures.count > failureLimit { failures.removeLast() }
        }
    }

    func merged(with other: ExplorationSummary, failureLimit: Int) -> ExplorationSummary {
        var sum = self
        sum.runs += other.runs
        sum.simulatedTime += other.simulatedTime
        sum.faults = sum.faults + other.faults
        sum.invariantChecks += other.invariantChecks
        sum.jobsRun += other.jobsRun
        sum.inputs += other.inputs
        sum.delayPool.merge(other.delayPool)
        for index in sum.violatingRuns.indices { sum.violatingRuns[index].runs += other.violatingRuns[index].runs }
        sum.deadlocks += other.deadlocks
        sum.divergentRuns += other.divergentRuns
        sum.failureCount += other.failureCount
        sum.failures = Array((sum.failures + other.failures).sorted { $0.seed < $1.seed }.prefix(failureLimit))
        return sum
    }

    /// Runs in which `invariant` was violated.
    public func runs(violating invariant: Rule) -> Int {
        violatingRuns.first { $0.invariant == invariant }?.runs ?? 0
    }

    /// The groups of retry delays that do not follow their publication (`backoff-distribution`).
    public var distributionRejections: [BackoffDelayPool.Verdict] { delayPool.rejections() }

    /// No violation, no deadlock and no divergence in any run, and the runs' retry delays
    /// together follow their published distributions.
    public var passed: Bool { failureCount == 0 && distributionRejections.isEmpty }
}
