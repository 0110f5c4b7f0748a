/// The Wald–Wolfowitz runs test above and below the median.
///
/// ```swift
/// let result = RunsTest(sequence: pits)
/// result.runs, result.expectedRuns, result.pValue
/// ```
///
/// Values equal to the median are dropped; of the rest, n₁ lie above and n₂ below. Under
/// independence the number of runs R has mean μ = 2n₁n₂/(n₁+n₂) + 1 and variance
/// σ² = 2n₁n₂(2n₁n₂ − n₁ − n₂) / ((n₁+n₂)²(n₁+n₂−1)); z = (R − μ)/σ, two-sided. Too few runs
/// means streaks (a trend or sticky state), too many means alternation (like a generator
/// that flips a sign every draw).
public struct RunsTest: Sendable, CustomStringConvertible {
    /// The number of runs above or below the median.
    public let runs: Int
    /// Values above the median (n₁).
    public let above: Int
    /// Values below the median (n₂).
    public let below: Int
    /// μ = 2n₁n₂/(n₁+n₂) + 1.
    public let expectedRuns: Double
    /// (R − μ)/σ.
    public let z: Double
    /// Two-sided p-value of `z`.
    public let pValue: Double

    /// Counts runs in `sequence`, in its order.
    public init(sequence: [Double]) {
        precondition(!sequence.isEmpty, "runs test needs values")
        let sorted = sequence.sorted()
        let middle = sorted.count / 2
        let median = sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
        var runs = 0, above = 0, below = 0
        var last: Bool?
        for value in sequence where value != median {
            let isAbove = value > median
            if isAbove { above += 1 } else { below += 1 }
            if isAbove != last { runs += 1 }
            last = isAbove
        }
        self.runs = runs
        self.above = above
        self.below = below
        let n1 = Double(above), n2 = Double(below), total = n1 + n2
        if above == 0 || below == 0 || total < 3 {
            // Nothing to alternate between: no evidence against independence.
            expectedRuns = Double(runs)
            z = 0
            pValue = 1
            return
        }
        expectedRuns = 2 * n1 * n2 / total + 1
        let variance = 2 * n1 * n2 * (2 * n1 * n2 - n1 - n2) / (total * total * (total - 1))
        z = variance > 0 ? (Double(runs) - expectedRuns) / variance.squareRoot() : 0
        pValue = SpecialFunctions.normalTwoSided(z)
    }

    public var description: String {
        "\(runs) runs vs \(expectedRuns.formatted(digits: 1)) expected (z = \(z.formatted(digits: 2)), p = \(pValue.formattedPValue))"
    }
}
