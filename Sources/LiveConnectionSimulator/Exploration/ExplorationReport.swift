public import Foundation
import LiveConnectionTraces

/// What an exploration found, as a file: one shard's report, or several merged.
///
/// ```swift
/// let summary = Explorer(seeds: 0..<2_500, generator: generator).run()
/// let report = ExplorationReport(summary, seeds: 0..<2_500, duration: .seconds(3600), strategy: nil,
///                                replay: { "livesim replay --seed \($0)" })
/// try report.encoded().write(to: URL(fileURLWithPath: "shard-0.json"))
/// let merged = try ExplorationReport.merge([report, other])   // the summary one run over both would give
/// ```
///
/// The ``results`` are everything the seeds determine — sums, violations by invariant,
/// failing seeds with their violations and replay lines — so the results of shards merged
/// equal those of one run over their union, whatever the thread count or machine. How the
/// work was done (wall time, threads, which shard) is kept apart in ``shards``.
public struct ExplorationReport: Codable, Equatable, Sendable {
    /// The file format's version; a reader refuses others.
    public static let formatVersion = 1

    /// What the seeds determine.
    public struct Results: Codable, Equatable, Sendable {
        /// The broken variant explored ("correct" for the shipped machine).
        public var variant: String
        /// Virtual time per run, in milliseconds.
        public var durationMilliseconds: Int64
        /// The strategy every seed used, or nil when each seed picked its own.
        public var strategy: String?
        /// Whether every seed ran twice and was byte-compared.
        public var checksDeterminism: Bool
        /// The seeds covered, as sorted, disjoint, non-adjacent half-open ranges.
        public var seeds: [SeedRange]
        public var runs: Int
        public var simulatedNanoseconds: Int64
        public var inputs: Int
        public var executorJobs: Int
        public var invariantChecks: Int
        public var deadlocks: Int
        public var divergentRuns: Int
        /// Fault actions applied, by kind name (every kind present, zeros included).
        public var faults: [String: Int]
        /// Runs violating each invariant, by name (every invariant present, zeros included).
        public var violatingRuns: [String: Int]
        /// Failing runs, counted even beyond the ones listed.
        public var failureCount: Int
        /// The first failing runs by seed (at most ``ExplorationReport/failureLimit``).
        public var failures: [Failure]
        /// `backoff-distribution`'s pool: transform counts per "family failures" group
        /// (``BackoffDelayPool/keyedCounts``); merged shards add up, then are judged once.
        /// Absent in reports written before the rule existed.
        public var backoffDelays: [String: [Int]]?
        /// Its tallies at the cap, per family ([eligible, observed, expected, variance] in billionths).
        public var backoffAtoms: [String: [Int64]]?

        /// The pool the counts describe (empty when absent or malformed).
        public var delayPool: BackoffDelayPool {
            BackoffDelayPool(keyedCounts: backoffDelays ?? [:], keyedAtoms: backoffAtoms ?? [:]) ?? .init()
        }
    }

    /// A half-open range of seeds, `from..<to`.
    public struct SeedRange: Codable, Equatable, Sendable {
        public var from: UInt64
        public var to: UInt64
        public init(_ range: Range<UInt64>) {
            from = range.lowerBound
            to = range.upperBound
        }
        public var range: Range<UInt64> { from..<to }
    }

    /// One failing seed.
    public struct Failure: Codable, Equatable, Sendable {
        public var seed: UInt64
        public var violations: [ViolationRecord]
        public var deadlocked: Bool
        public var divergence: String?
        /// The command that re-runs this seed exactly.
        public var replay: String
    }

    /// One violation, as the simulator reported it.
    public struct ViolationRecord: Codable, Equatable, Sendable {
        public var invariant: String
        public var atNanoseconds: Int64
        public var detail: String
    }

    /// How one shard was run (not part of the results: it depends on the machine).
    public struct Shard: Codable, Equatable, Sendable {
        public var seeds: SeedRange
        public var wallSeconds: Double
        public var threads: Int
    }

    /// At most this many failures are listed (all are counted).
    public static let failureLimit = 10_000

    public var format: Int
    public var results: Results
    public var shards: [Shard]

    /// The report of one exploration over `seeds`.
    public init(
        _ summary: ExplorationSummary, seeds: Range<UInt64>, duration: Duration, strategy: String?,
        checksDeterminism: Bool = false, wallSeconds: Double = 0, threads: Int = 1,
        replay: (UInt64) -> String
    ) {
        format = Self.formatVersion
        var faults: [String: Int] = [:]
        for kind in FaultKind.allCases { faults[kind.rawValue] = summary.faults[kind] }
        var violating: [String: Int] = [:]
        for (invariant, runs) in summary.violatingRuns { violating[invariant.name] = runs }
        results = Results(
            variant: summary.variant, durationMilliseconds: duration.nanoseconds / 1_000_000, strategy: strategy,
            checksDeterminism: checksDeterminism, seeds: seeds.isEmpty ? [] : [SeedRange(seeds)], runs: summary.runs,
            simulatedNanoseconds: summary.simulatedTime.nanoseconds, inputs: summary.inputs,
            executorJobs: summary.jobsRun, invariantChecks: summary.invariantChecks, deadlocks: summary.deadlocks,
            divergentRuns: summary.divergentRuns, faults: faults, violatingRuns: violating,
            failureCount: summary.failureCount,
            failures: summary.failures.prefix(Self.failureLimit).map { failure in
                Failure(
                    seed: failure.seed,
                    violations: failure.violations.map {
                        ViolationRecord(
                            invariant: $0.rule.name, atNanoseconds: $0.at.nanoseconds, detail: $0.detail
                        )
                    },
                    deadlocked: failure.deadlocked, divergence: failure.divergence, replay: replay(failure.seed))
            }, backoffDelays: summary.delayPool.keyedCounts, backoffAtoms: summary.delayPool.keyedAtoms)
        shards = [Shard(seeds: SeedRange(seeds), wallSeconds: wallSeconds, threads: threads)]
    }

    /// No failure in any run, and the retry delays of all of them follow their publications.
    public var passed: Bool { results.failureCount == 0 && results.delayPool.rejections().isEmpty }

    /// Pretty, key-sorted JSON (stable bytes for the same results).
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(self)
    }

    /// Reads a report, refusing another format version.
    public init(decoding data: Data) throws(ReportError) {
        let report: ExplorationReport
        do { report = try JSONDecoder().decode(ExplorationReport.self, from: data) } catch {
            throw .unreadable("\(error)")
        }
        guard report.format == Self.formatVersion else {
            throw .unreadable("format \(report.format); this livesim reads format \(Self.formatVersion)")
        }
        self = report
    }

    /// The report one exploration over all the reports' seeds would have written: sums
    /// added, failures interleaved by seed, seed ranges joined. The reports must agree on
    /// what was explored (variant, duration, strategy, determinism) and share no seed.
    public static func merge(_ reports: [ExplorationReport]) throws(ReportError) -> ExplorationReport {
        guard var merged = reports.first else { throw .nothingToMerge }
        for (index, report) in reports.enumerated().dropFirst() {
            let a = merged.results, b = report.results
            guard
                a.variant == b.variant, a.durationMilliseconds == b.durationMilliseconds, a.strategy == b.strategy,
                a.checksDeterminism == b.checksDeterminism
            else {
                throw .mismatch(
                    "report \(index + 1) explored variant \(b.variant), \(b.durationMilliseconds) ms, strategy "
                        + "\(b.strategy ?? "per seed"); the first explored variant \(a.variant), "
                        + "\(a.durationMilliseconds) ms, strategy \(a.strategy ?? "per seed")")
            }
            merged.results = try merged.results.adding(b)
            merged.shards += report.shards
        }
        return merged
    }

    /// Why reports cannot be read or merged.
    public enum ReportError: Error, Equatable, CustomStringConvertible {
        case unreadable(String)
        case nothingToMerge
        case mismatch(String)
        case overlap(UInt64)

        public var description: String {
            switch self {
            case .unreadable(let why): "not an exploration report: \(why)"
            case .nothingToMerge: "no reports to merge"
            case .mismatch(let why): "the reports explored different things: \(why)"
            case .overlap(let seed): "seed \(seed) is in more than one report: it would be counted twice"
            }
        }
    }
}

extension ExplorationReport.Results {
    func adding(_ other: Self) throws(ExplorationReport.ReportError) -> Self {
        var sum = self
        sum.seeds = try Self.join(seeds, other.seeds)
        sum.runs += other.runs
        sum.simulatedNanoseconds += other.simulatedNanoseconds
        sum.inputs += other.inputs
        sum.executorJobs += other.executorJobs
        sum.invariantChecks += other.invariantChecks
        sum.deadlocks += other.deadlocks
        sum.divergentRuns += other.divergentRuns
        sum.faults.merge(other.faults, uniquingKeysWith: +)
        sum.violatingRuns.merge(other.violatingRuns, uniquingKeysWith: +)
        sum.failureCount += other.failureCount
        var pool = delayPool
        pool.merge(other.delayPool)
        sum.backoffDelays = pool.keyedCounts
        sum.backoffAtoms = pool.keyedAtoms
        sum.failures = Array(
            (failures + other.failures).sorted { $0.seed < $1.seed }.prefix(ExplorationReport.failureLimit))
        return sum
    }

    /// Sorted, disjoint ranges with adjacent ones joined; an overlap is an error.
    static func join(_ a: [ExplorationReport.SeedRange], _ b: [ExplorationReport.SeedRange]) throws(ExplorationReport
        .ReportError) -> [ExplorationReport.SeedRange]
    {
        var joined: [ExplorationReport.SeedRange] = []
        for range in (a + b).sorted(by: { $0.from < $1.from }) {
            guard let last = joined.last else {
                joined.append(range)
                continue
            }
            if range.from < last.to { throw .overlap(range.from) }
            if range.from == last.to {
                joined[joined.count - 1].to = range.to
            } else {
                joined.append(range)
            }
        }
        return joined
    }
}
