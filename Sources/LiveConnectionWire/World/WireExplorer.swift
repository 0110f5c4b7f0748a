public import LiveConnectionRules
import LiveConnectionSimulator

/// Runs many seeds of the wire world for one client kind, in parallel, and adds up what
/// the rules found.
///
/// ```swift
/// let summary = WireExplorer(seeds: 0..<1_000, kind: ManagerClient.kind()).run()
/// for (rule, runs) in summary.violatingRuns where runs > 0 { print(rule, runs) }
/// summary.firstFailure(of: .wireOneSocket)?.seed
/// ```
///
/// Like ``Explorer``, on the same ``SeedWorkers``: each worker thread takes the next seed,
/// runs it without a log and folds the verdict into its own summary; the merged summary
/// does not depend on the number of threads (failures are kept by seed).
public struct WireExplorer: Sendable {
    public var seeds: Range<UInt64>
    public var generator: WireScenarioGenerator
    public var kind: ClientKind
    public var threads: Int

    public init(
        seeds: Range<UInt64>, generator: WireScenarioGenerator = WireScenarioGenerator(), kind: ClientKind,
        threads: Int? = nil
    ) {
        self.seeds = seeds
        self.generator = generator
        self.kind = kind
        self.threads = max(1, threads ?? Explorer.processorCount)
    }

    public func run(progress: (@Sendable (_ finished: Int, _ failed: Int) -> Void)? = nil) -> WireExplorationSummary {
        let (generator, kind) = (generator, kind)
        return SeedWorkers(seeds: seeds, threads: threads).run(
            start: { WireExplorationSummary(client: kind.name) },
            seed: { seed, summary in
                let result = WireRun(generator.scenario(seed: seed), kind: kind, recordsLog: false).run()
                summary.add(result)
                return result.passed
            },
            merge: { $0.merged(with: $1) },
            progress: progress)
    }
}

/// What a wire exploration found, summed over its runs.
public struct WireExplorationSummary: Sendable {
    public struct Failure: Sendable {
        public var seed: UInt64
        public var clients: Int
        public var violations: [Violation]
        public var deadlocked: Bool
        /// Why the simulation stopped early, when it did.
        public var unfinished: String?
    }

    public var client: String
    public var runs = 0
    public var herdRuns = 0
    public var simulatedTime: Duration = .zero
    public var checks = 0
    /// How many times the network path went or came back, over all runs.
    public var pathChanges = 0
    public var jobsRun = 0
    /// Runs that violated each rule, in ``Rule/wireRules`` order.
    public var violatingRuns: [(rule: Rule, runs: Int)] = Rule.wireRules.map { ($0, 0) }
    public var deadlocks = 0
    /// Failing runs, by seed (at most ``failureLimit``).
    public var failures: [Failure] = []
    public var failureCount = 0
    public static let failureLimit = 1_000

    public init(client: String) { self.client = client }

    mutating func add(_ result: WireRunResult) {
        runs += 1
        if result.clients > 1 { herdRuns += 1 }
        simulatedTime += result.simulatedTime
        checks += result.checks
        pathChanges += result.pathChanges
        jobsRun += result.jobsRun
        for index in violatingRuns.indices
        where result.violations.contains(where: { $0.rule == violatingRuns[index].rule }) {
            violatingRuns[index].runs += 1
        }
        if result.deadlocked { deadlocks += 1 }
        guard !result.passed else { return }
        failureCount += 1
        failures.append(
            Failure(
                seed: result.seed, clients: result.clients, violations: result.violations,
                deadlocked: result.deadlocked,
                unfinished: result.unfinished))
        failures.sort { $0.seed < $1.seed }
        if failures.count > Self.failureLimit { failures.removeLast() }
    }

    func merged(with other: WireExplorationSummary) -> WireExplorationSummary {
        var sum = self
        sum.runs += other.runs
        sum.herdRuns += other.herdRuns
        sum.simulatedTime += other.simulatedTime
        sum.checks += other.checks
        sum.pathChanges += other.pathChanges
        sum.jobsRun += other.jobsRun
        for index in sum.violatingRuns.indices { sum.violatingRuns[index].runs += other.violatingRuns[index].runs }
        sum.deadlocks += other.deadlocks
        sum.failureCount += other.failureCount
        sum.failures = Array((sum.failures + other.failures).sorted { $0.seed < $1.seed }.prefix(Self.failureLimit))
        return sum
    }

    /// The first failing seed that broke `rule`.
    public func firstFailure(of rule: Rule) -> Failure? {
        failures.first { $0.violations.contains { $0.rule == rule } }
    }

    public var passed: Bool { failureCount == 0 }
}
