/// The lag-k autocorrelation test of independence for one sequence.
///
/// ```swift
/// let result = AutocorrelationTest(sequence: pits, lag: 1)
/// result.coefficient   // r₁, ≈ 0 for independent draws
/// result.pValue        // two-sided, from r_k ~ N(−1/n, 1/n)
/// ```
///
/// r_k = Σ (xᵢ − x̄)(xᵢ₊ₖ − x̄) / Σ (xᵢ − x̄)². For independent, identically distributed
/// values r_k is asymptotically normal with mean −1/n and variance 1/n (Box and Jenkins),
/// so z = (r_k + 1/n)·√n. A generator whose next delay leans on the last one shows up
/// here; feed it probability-integral-transformed values so that a growing ceiling (which
/// correlates raw delays by design) does not count as dependence.
public struct AutocorrelationTest: Sendable, CustomStringConvertible {
    /// k, the distance between the paired values.
    public let lag: Int
    /// r_k.
    public let coefficient: Double
    /// (r_k + 1/n)·√n.
    public let z: Double
    /// Two-sided p-value of `z`.
    public let pValue: Double
    /// n, the length of the sequence.
    public let sampleSize: Int

    /// Tests `sequence`, in its order, at lag `lag`.
    public init(sequence: [Double], lag: Int = 1) {
        precondition(lag >= 1 && sequence.count > lag + 1, "autocorrelation: need lag ≥ 1 and more than lag + 1 values")
        let n = sequence.count
        let mean = sequence.reduce(0, +) / Double(n)
        var denominator = 0.0
        for value in sequence { denominator += (value - mean) * (value - mean) }
        var numerator = 0.0
        for index in 0..<(n - lag) { numerator += (sequence[index] - mean) * (sequence[index + lag] - mean) }
        self.lag = lag
        sampleSize = n
        coefficient = denominator > 0 ? numerator / denominator : 0
        // A constant sequence carries no evidence of dependence either way.
        z = denominator > 0 ? (coefficient + 1 / Double(n)) * Double(n).squareRoot() : 0
        pValue = SpecialFunctions.normalTwoSided(z)
    }

    public var description: String {
        "r\(lag) = \(coefficient.formatted(digits: 4)) (z = \(z.formatted(digits: 2)), n = \(sampleSize), p = \(pValue.formattedPValue))"
    }
}
