import Foundation

/// Pearson's χ² goodness-of-fit test on binned counts.
///
/// ```swift
/// let result = ChiSquareTest.uniform(unitValues: pits)   // equiprobable bins on [0, 1)
/// result.statistic, result.degreesOfFreedom, result.pValue
/// result.worstBin   // the bin that contributes most, with its edges
/// ```
///
/// Adjacent bins are merged until every expected count is at least 5, the usual condition
/// for the χ² approximation; df = k − 1 for k merged bins (no parameters are estimated).
/// Unlike KS, the statistic does not care about ties, so it stays exact-ish on delays that
/// were rounded to milliseconds, and bins narrow enough to straddle a comb's teeth see
/// the teeth that a KS supremum averages away.
public struct ChiSquareTest: Sendable, CustomStringConvertible {
    /// One (possibly merged) bin: its edges, observed and expected counts.
    public struct Bin: Sendable, Equatable {
        /// The lower edge of the bin.
        public var lower: Double
        /// The upper edge of the bin.
        public var upper: Double
        /// How many values fell in the bin.
        public var observed: Int
        /// How many the claim expects.
        public var expected: Double
        /// (O − E)² / E.
        public var contribution: Double {
            expected > 0 ? (Double(observed) - expected) * (Double(observed) - expected) / expected : 0
        }
    }

    /// The bins after merging, in order.
    public let bins: [Bin]
    /// Σ (O − E)² / E over the merged bins.
    public let statistic: Double
    /// k − 1 for k merged bins.
    public let degreesOfFreedom: Int
    /// P(χ²_df ≥ statistic).
    public let pValue: Double
    /// The total observed count.
    public let sampleSize: Int

    /// The smallest expected count a bin may have after merging.
    public static let minimumExpected = 5.0

    /// Tests observed counts against expected counts for bins with the given edges
    /// (`edges.count == observed.count + 1`; pass indices if edges mean nothing).
    public init(observed: [Int], expected: [Double], edges: [Double]? = nil) {
        precondition(
            observed.count == expected.count && !observed.isEmpty, "χ²: observed and expected must match in length")
        let edges = edges ?? (0...observed.count).map(Double.init)
        precondition(edges.count == observed.count + 1, "χ²: need one more edge than bins")
        var merged: [Bin] = []
        var pending: Bin?
        for index in observed.indices {
            var bin = pending ?? Bin(lower: edges[index], upper: edges[index], observed: 0, expected: 0)
            bin.upper = edges[index + 1]
            bin.observed += observed[index]
            bin.expected += expected[index]
            if bin.expected >= Self.minimumExpected {
                merged.append(bin)
                pending = nil
            } else {
                pending = bin
            }
        }
        if let rest = pending {
            // A short last bin joins the one before it.
            if var last = merged.popLast() {
                last.upper = rest.upper
                last.observed += rest.observed
                last.expected += rest.expected
                merged.append(last)
            } else {
                merged.append(rest)
            }
        }
        bins = merged
        statistic = merged.reduce(0) { $0 + $1.contribution }
        degreesOfFreedom = max(1, merged.count - 1)
        pValue =
            merged.count < 2 ? 1 : SpecialFunctions.chiSquareSurvival(statistic, degreesOfFreedom: degreesOfFreedom)
        sampleSize = observed.reduce(0, +)
    }

    /// Equiprobable bins on [0, 1] for probability-integral-transformed values.
    ///
    /// The default bin count, min(n/5, ⌈2n^{2/5}⌉) (Moore's rule of thumb k ≈ 2n^{2/5}, capped
    /// so that n/k ≥ 5), keeps every expected count ≥ 5 without merging.
    public static func uniform(unitValues: [Double], bins: Int? = nil) -> ChiSquareTest {
        let n = unitValues.count
        precondition(n > 0, "χ² needs at least one value")
        let k = max(2, bins ?? min(n / 5, Int((2 * pow(Double(n), 0.4)).rounded(.up))))
        var counts = Array(repeating: 0, count: k)
        for value in unitValues {
            let index = min(k - 1, max(0, Int(value * Double(k))))
            counts[index] += 1
        }
        let expected = Array(repeating: Double(n) / Double(k), count: k)
        let edges = (0...k).map { Double($0) / Double(k) }
        return ChiSquareTest(observed: counts, expected: expected, edges: edges)
    }

    /// The bin with the largest contribution to the statistic.
    public var worstBin: Bin {
        bins.max { $0.contribution < $1.contribution } ?? bins[0]
    }

    public var description: String {
        "χ² = \(statistic.formatted(digits: 2)) (df = \(degreesOfFreedom), n = \(sampleSize), p = \(pValue.formattedPValue))"
    }
}
