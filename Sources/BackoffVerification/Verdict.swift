import Statistics

/// The outcome of one statistical check: enough to act on without rerunning anything.
///
/// ```swift
/// let report = BackoffFit.verify(.fullJitter(), attempts: 1...8, runs: 500, seed: 7)
/// for verdict in report.verdicts where verdict.rejected {
///     print(verdict)   // "KS, pooled PIT: D = 0.0712, p = 3.1e-05, n = 4000, seed 7 — worst: …"
/// }
/// ```
///
/// `alpha` is the level this row is judged at (after the report's Bonferroni split), so
/// `rejected` needs no context; `seed` is the seed that produced the sample when the kit
/// drew it (nil for delays read from a file).
public struct Verdict: Sendable, CustomStringConvertible {
    /// What was tested, e.g. "KS, attempt 3" or "mass at cap".
    public var test: String
    /// The statistic's symbol ("D", "χ²", "r₁", …) and value.
    public var statisticName: String
    /// The statistic's value.
    public var statistic: Double
    /// The p-value under the claim.
    public var pValue: Double
    /// How many values the check used.
    public var sampleSize: Int
    /// The level this row is judged at.
    public var alpha: Double
    /// The seed that drew the sample, if the kit drew it.
    public var seed: UInt64?
    /// Where the data departs most from the claim, in words a user can look up.
    public var worstRegion: String

    /// A verdict (``BackoffFit`` builds them).
    public init(
        test: String, statisticName: String, statistic: Double, pValue: Double, sampleSize: Int, alpha: Double,
        seed: UInt64?, worstRegion: String
    ) {
        self.test = test
        self.statisticName = statisticName
        self.statistic = statistic
        self.pValue = pValue
        self.sampleSize = sampleSize
        self.alpha = alpha
        self.seed = seed
        self.worstRegion = worstRegion
    }

    /// True when the p-value is below this row's level.
    public var rejected: Bool { pValue < alpha }

    public var description: String {
        let seedText = seed.map { ", seed \($0)" } ?? ""
        return "\(rejected ? "REJECT" : "ok"): \(test): \(statisticName) = \(statistic.compact(significant: 4)), "
            + "p = \(pValue.formattedPValue) (α = \(alpha.compact(significant: 3))), n = \(sampleSize)\(seedText) — worst: \(worstRegion)"
    }
}
