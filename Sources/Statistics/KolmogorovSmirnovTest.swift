/// The one-sample Kolmogorov–Smirnov test of a sample against a continuous CDF.
///
/// ```swift
/// let result = KolmogorovSmirnovTest(sample: values) { x in min(1, max(0, x)) }  // U(0, 1)
/// if result.pValue < 0.01 { print("not uniform: D = \(result.statistic) near \(result.worstValue)") }
/// ```
///
/// D = max over i of max(i/n − F(x₍ᵢ₎), F(x₍ᵢ₎) − (i−1)/n). The p-value comes from
/// ``KolmogorovDistribution``: exact for n ≤ 1000, asymptotic beyond. On data with ties
/// (for example delays rounded to milliseconds) the test stays valid but conservative;
/// ``ChiSquareTest`` is the complement for that case.
public struct KolmogorovSmirnovTest: Sendable, CustomStringConvertible {
    /// D = max(D⁺, D⁻).
    public let statistic: Double
    /// max(i/n − F(x₍ᵢ₎)): the sample runs ahead of F (too many small values).
    public let plusStatistic: Double
    /// max(F(x₍ᵢ₎) − (i−1)/n): the sample lags F (too many large values).
    public let minusStatistic: Double
    /// The sample value where the largest gap sits (the worst-fitting region).
    public let worstValue: Double
    /// F at the worst value.
    public let theoreticalAtWorst: Double
    /// The empirical CDF on the side of the worst value where the gap is largest.
    public let empiricalAtWorst: Double
    /// The number of values tested.
    public let sampleSize: Int
    /// P(Dₙ ≥ D) under the null hypothesis.
    public let pValue: Double

    /// Tests `sample` against `cdf`; the sample need not be sorted.
    public init(sample: [Double], cdf: (Double) -> Double) {
        precondition(!sample.isEmpty, "the Kolmogorov–Smirnov test needs at least one value")
        self.init(sorted: sample.sorted(), cdf: cdf)
    }

    /// Tests an already sorted sample (saves the sort when the caller has one).
    public init(sorted: [Double], cdf: (Double) -> Double) {
        precondition(!sorted.isEmpty, "the Kolmogorov–Smirnov test needs at least one value")
        let n = sorted.count
        let count = Double(n)
        var plus = -Double.infinity, minus = -Double.infinity
        var worst = sorted[0], worstF = 0.0, worstEmpirical = 0.0
        var best = -Double.infinity
        for (index, value) in sorted.enumerated() {
            let f = cdf(value)
            let above = Double(index + 1) / count - f
            let below = f - Double(index) / count
            plus = max(plus, above)
            minus = max(minus, below)
            if above > best {
                best = above
                (worst, worstF, worstEmpirical) = (value, f, Double(index + 1) / count)
            }
            if below > best {
                best = below
                (worst, worstF, worstEmpirical) = (value, f, Double(index) / count)
            }
        }
        plusStatistic = plus
        minusStatistic = minus
        statistic = max(plus, minus)
        worstValue = worst
        theoreticalAtWorst = worstF
        empiricalAtWorst = worstEmpirical
        sampleSize = n
        pValue = KolmogorovDistribution.survival(statistic, sampleSize: n)
    }

    public var description: String {
        "KS D = \(statistic.formatted(digits: 4)) (n = \(sampleSize), p = \(pValue.formattedPValue)), "
            + "worst at \(worstValue.formatted(digits: 4)): F = \(theoreticalAtWorst.formatted(digits: 3)), "
            + "empirical \(empiricalAtWorst.formatted(digits: 3))"
    }
}
