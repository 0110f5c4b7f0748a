import Foundation
public import LiveConnection
import Statistics

/// Retry delays of many runs, pooled per policy family and failure count, judged against
/// the distribution each delay's publication states (`backoff-distribution`).
///
/// ```swift
/// var pool = BackoffDelayPool()
/// pool.add(transform: 0.37, family: .fullJitter, failures: 2)   // one delay's U = F(delay)
/// pool.merge(otherRunsPool)
/// for verdict in pool.verdicts() where verdict.rejected { print(verdict) }
/// ```
///
/// `backoff-within-policy` catches a delay outside the published range; a draw that stays
/// inside it but is distributed wrongly (full jitter drawn from half its range, decorrelated
/// jitter that lost its atom at the cap) passes every single run. Only many delays show it,
/// so this rule is judged over an exploration's runs, not within one.
///
/// Each delay is reduced to its probability integral transform U = F(delay), with F the
/// published distribution for the delay's policy, failure count and previous delay; at an
/// atom (the cap of decorrelated jitter) U is spread uniformly over the jump with the
/// judge's own seeded generator (the randomized transform), so under the publication U is
/// exactly uniform on [0, 1] whatever the parameters. Transforms are counted in
/// ``binCount`` equal bins per (family, failures) group, failure counts from
/// ``pooledFailures`` on sharing a group: memory is fixed, whatever the number of seeds, and
/// pools of shards add up to the pool of one run over their union. Each group with at least
/// ``minimumCount`` delays gets a χ² test; the groups together are judged at family-wise
/// level α by Bonferroni.
public struct BackoffDelayPool: Hashable, Sendable {
    /// Bins per group: 20 bins of 5 % each.
    public static let binCount = 20
    /// Failure counts from this one on are pooled into one group.
    public static let pooledFailures = 7
    /// A group is tested once every bin expects at least 5 delays.
    public static let minimumCount = 5 * binCount

    /// One group: a policy family and a failure count (``pooledFailures`` meaning "or more").
    public struct Group: Hashable, Sendable, Comparable, CustomStringConvertible {
        public var family: BackoffPolicy.Family
        public var failures: Int

        public init(family: BackoffPolicy.Family, failures: Int) {
            self.family = family
            self.failures = min(max(1, failures), BackoffDelayPool.pooledFailures)
        }

        public static func < (lhs: Group, rhs: Group) -> Bool {
            (lhs.family, lhs.failures) < (rhs.family, rhs.failures)
        }

        /// "full-jitter after 3 failures", "table after 7+ failures".
        public var description: String {
            let count = failures >= BackoffDelayPool.pooledFailures ? "\(failures)+" : "\(failures)"
            return "\(family.rawValue) after \(count) failure\(failures == 1 ? "" : "s")"
        }

        /// The key a report file stores the group's counts under: "full-jitter 3".
        public var key: String { "\(family.rawValue) \(failures)" }

        /// Reads ``key``.
        public init?(key: String) {
            let parts = key.split(separator: " ")
            guard parts.count == 2, let family = BackoffPolicy.Family(rawValue: String(parts[0])),
                let failures = Int(parts[1]), (1...BackoffDelayPool.pooledFailures).contains(failures)
            else { return nil }
            self.init(family: family, failures: failures)
        }
    }

    /// One group's judgement.
    public struct Verdict: Hashable, Sendable, CustomStringConvertible {
        public var group: Group
        public var count: Int
        public var statistic: Double
        public var degreesOfFreedom: Int
        public var pValue: Double
        /// The level this group was judged at (α over the number of groups tested).
        public var level: Double
        /// The bin furthest from its expectation, in words.
        public var worst: String
        public var rejected: Bool { pValue < level }

        /// "3.2e-07": p-values and levels this small read best in powers of ten.
        static func scientific(_ value: Double) -> String {
            value == 0 ? "0" : String(format: "%.2g", value)
        }

        public var description: String {
            "\(group): \(count) delays, χ²(\(degreesOfFreedom)) = \(statistic.formatted(digits: 1)), "
                + "p = \(Self.scientific(pValue)) \(rejected ? "<" : "≥") \(Self.scientific(level)); \(worst)"
        }
    }

    /// Transform counts per group, ``binCount`` each.
    public private(set) var counts: [Group: [Int]] = [:]

    public init() {}

    /// The pool a report file stored (``counts`` under ``Group/key``); nil if it is malformed.
    public init?(keyedCounts: [String: [Int]]) {
        for (key, bins) in keyedCounts {
            guard let group = Group(key: key), bins.count == Self.binCount, bins.allSatisfy({ $0 >= 0 }) else {
                return nil
            }
            counts[group] = bins
        }
    }

    /// The counts under ``Group/key``, for a report file.
    public var keyedCounts: [String: [Int]] {
        Dictionary(uniqueKeysWithValues: counts.map { ($0.key.key, $0.value) })
    }

    /// Delays pooled so far.
    public var total: Int { counts.values.reduce(0) { $0 + $1.reduce(0, +) } }

    /// Counts one delay's transform `u` (in [0, 1]).
    public mutating func add(transform u: Double, family: BackoffPolicy.Family, failures: Int) {
        let bin = min(Self.binCount - 1, max(0, Int(u * Double(Self.binCount))))
        counts[Group(family: family, failures: failures), default: Array(repeating: 0, count: Self.binCount)][bin] += 1
    }

    /// Adds another pool's counts (another run's, another shard's).
    public mutating func merge(_ other: BackoffDelayPool) {
        for (group, bins) in other.counts {
            var sum = counts[group] ?? Array(repeating: 0, count: Self.binCount)
            for index in sum.indices { sum[index] += bins[index] }
            counts[group] = sum
        }
    }

    /// The verdict of every group large enough to test, in group order, each at α / m for
    /// the m groups tested.
    public func verdicts(alpha: Double = Specification.falseAlarmAlpha) -> [Verdict] {
        let tested = counts.keys.sorted().filter { (counts[$0] ?? []).reduce(0, +) >= Self.minimumCount }
        let level = alpha / Double(max(1, tested.count))
        let edges = (0...Self.binCount).map { Double($0) / Double(Self.binCount) }
        return tested.map { group in
            let bins = counts[group] ?? []
            let n = bins.reduce(0, +)
            let expected = Array(repeating: Double(n) / Double(Self.binCount), count: Self.binCount)
            let test = ChiSquareTest(observed: bins, expected: expected, edges: edges)
            let bin = test.worstBin
            let worst =
                "U in [\(bin.lower.formatted(digits: 2)), \(bin.upper.formatted(digits: 2))): \(bin.observed) delays vs "
                + "\(bin.expected.formatted(digits: 1)) expected"
            return Verdict(
                group: group, count: n, statistic: test.statistic, degreesOfFreedom: test.degreesOfFreedom,
                pValue: test.pValue, level: level, worst: worst)
        }
    }

    /// The groups whose delays do not follow their publication.
    public func rejections(alpha: Double = Specification.falseAlarmAlpha) -> [Verdict] {
        verdicts(alpha: alpha).filter(\.rejected)
    }
}
