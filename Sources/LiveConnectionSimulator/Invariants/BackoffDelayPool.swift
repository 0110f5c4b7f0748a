import Foundation
public import LiveConnection
public import LiveConnectionRules
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

    /// One test's judgement: a group's χ², or a family's mass at the cap.
    public struct Verdict: Hashable, Sendable, CustomStringConvertible {
        /// "full-jitter after 3 failures", or "decorrelated-jitter at the cap".
        public var subject: String
        public var count: Int
        /// The statistic in words: "χ²(19) = 708.0", "0 at the cap vs 41.3 expected".
        public var statistic: String
        public var pValue: Double
        /// The level this test was judged at (α over the number of tests made).
        public var level: Double
        /// Where the delays depart most from the publication, in words.
        public var worst: String
        public var rejected: Bool { pValue < level }

        /// "3.2e-07": p-values and levels this small read best in powers of ten.
        static func scientific(_ value: Double) -> String {
            value == 0 ? "0" : String(format: "%.2g", value)
        }

        public var description: String {
            "\(subject): \(count) delays, \(statistic), p = \(Self.scientific(pValue)) "
                + "\(rejected ? "<" : "≥") \(Self.scientific(level)); \(worst)"
        }
    }

    /// Decorrelated jitter's atom, per family: each delay that could sit at the cap adds its
    /// published mass there (expected count) and its variance, in integer billionths so
    /// that sums are exact in any order (threads, shards); and whether it did.
    public struct AtomTally: Hashable, Sendable {
        public var eligible = 0
        public var observed = 0
        public var expectedBillionths: Int64 = 0
        public var varianceBillionths: Int64 = 0

        public init() {}

        /// The tally as a report file stores it: [eligible, observed, expected, variance].
        public var stored: [Int64] { [Int64(eligible), Int64(observed), expectedBillionths, varianceBillionths] }

        public init?(stored: [Int64]) {
            guard stored.count == 4, stored.allSatisfy({ $0 >= 0 }), stored[1] <= stored[0] else { return nil }
            eligible = Int(stored[0])
            observed = Int(stored[1])
            expectedBillionths = stored[2]
            varianceBillionths = stored[3]
        }

        mutating func add(_ other: AtomTally) {
            eligible += other.eligible
            observed += other.observed
            expectedBillionths += other.expectedBillionths
            varianceBillionths += other.varianceBillionths
        }
    }

    /// A family's atom is tested once the variance of its count reaches this (the normal
    /// approximation of the Poisson binomial is then sound).
    public static let minimumAtomVariance = 5.0

    /// Transform counts per group, ``binCount`` each.
    public private(set) var counts: [Group: [Int]] = [:]
    /// The atom at the cap, per family (only decorrelated jitter has one).
    public private(set) var atoms: [BackoffPolicy.Family: AtomTally] = [:]

    public init() {}

    /// The pool a report file stored (``counts`` under ``Group/key``, ``atoms`` under the
    /// family's name); nil if it is malformed.
    public init?(keyedCounts: [String: [Int]], keyedAtoms: [String: [Int64]] = [:]) {
        for (key, bins) in keyedCounts {
            guard let group = Group(key: key), bins.count == Self.binCount, bins.allSatisfy({ $0 >= 0 }) else {
                return nil
            }
            counts[group] = bins
        }
        for (key, stored) in keyedAtoms {
            guard let family = BackoffPolicy.Family(rawValue: key), let tally = AtomTally(stored: stored) else {
                return nil
            }
            atoms[family] = tally
        }
    }

    /// The atom tallies under the family's name, for a report file.
    public var keyedAtoms: [String: [Int64]] {
        Dictionary(uniqueKeysWithValues: atoms.map { ($0.key.rawValue, $0.value.stored) })
    }

    /// The counts under ``Group/key``, for a report file.
    public var keyedCounts: [String: [Int]] {
        Dictionary(uniqueKeysWithValues: counts.map { ($0.key.key, $0.value) })
    }

    /// Delays pooled so far.
    public var total: Int { counts.values.reduce(0) { $0 + $1.reduce(0, +) } }

    /// Counts one delay's transform `u` (in [0, 1]), and, for a delay that could sit at an
    /// atom, the atom's published mass and whether it did.
    public mutating func add(
        transform u: Double, family: BackoffPolicy.Family, failures: Int, atom: (mass: Double, hit: Bool)? = nil
    ) {
        let bin = min(Self.binCount - 1, max(0, Int(u * Double(Self.binCount))))
        counts[Group(family: family, failures: failures), default: Array(repeating: 0, count: Self.binCount)][bin] += 1
        guard let atom else { return }
        var tally = atoms[family] ?? AtomTally()
        tally.eligible += 1
        if atom.hit { tally.observed += 1 }
        tally.expectedBillionths += Int64((atom.mass * 1e9).rounded())
        tally.varianceBillionths += Int64((atom.mass * (1 - atom.mass) * 1e9).rounded())
        atoms[family] = tally
    }

    /// Adds another pool's counts (another run's, another shard's).
    public mutating func merge(_ other: BackoffDelayPool) {
        for (group, bins) in other.counts {
            var sum = counts[group] ?? Array(repeating: 0, count: Self.binCount)
            for index in sum.indices { sum[index] += bins[index] }
            counts[group] = sum
        }
        for (family, tally) in other.atoms { atoms[family, default: AtomTally()].add(tally) }
    }

    /// The verdict of every test the pool is large enough for, each at α / m for the m tests
    /// made: a χ² per group, in group order, then the mass at the cap per family.
    public func verdicts(alpha: Double = Specification.falseAlarmAlpha) -> [Verdict] {
        let groups = counts.keys.sorted().filter { (counts[$0] ?? []).reduce(0, +) >= Self.minimumCount }
        let families = atoms.keys.sorted().filter {
            Double(atoms[$0]?.varianceBillionths ?? 0) / 1e9 >= Self.minimumAtomVariance
        }
        let level = alpha / Double(max(1, groups.count + families.count))
        let edges = (0...Self.binCount).map { Double($0) / Double(Self.binCount) }
        let binned = groups.map { group in
            let bins = counts[group] ?? []
            let n = bins.reduce(0, +)
            let expected = Array(repeating: Double(n) / Double(Self.binCount), count: Self.binCount)
            let test = ChiSquareTest(observed: bins, expected: expected, edges: edges)
            let bin = test.worstBin
            return Verdict(
                subject: "\(group)", count: n,
                statistic: "χ²(\(test.degreesOfFreedom)) = \(test.statistic.formatted(digits: 1))", pValue: test.pValue,
                level: level,
                worst: "U in [\(bin.lower.formatted(digits: 2)), \(bin.upper.formatted(digits: 2))): \(bin.observed) "
                    + "delays vs \(bin.expected.formatted(digits: 1)) expected")
        }
        let atStake = families.map { family in
            let tally = atoms[family] ?? AtomTally()
            let expected = Double(tally.expectedBillionths) / 1e9
            let variance = Double(tally.varianceBillionths) / 1e9
            // The count at the cap is a Poisson binomial: its normal approximation, two-sided.
            let z = (Double(tally.observed) - expected) / variance.squareRoot()
            return Verdict(
                subject: "\(family.rawValue) at the cap", count: tally.eligible,
                statistic:
                    "\(tally.observed) at the cap vs \(expected.formatted(digits: 1)) expected (z = \(z.formatted(digits: 2)))",
                pValue: SpecialFunctions.normalTwoSided(z), level: level,
                worst: "\(tally.eligible) delays that could sit at the cap")
        }
        return binned + atStake
    }

    /// The groups whose delays do not follow their publication.
    public func rejections(alpha: Double = Specification.falseAlarmAlpha) -> [Verdict] {
        verdicts(alpha: alpha).filter(\.rejected)
    }
}
