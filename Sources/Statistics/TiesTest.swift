/// Exact ties among values that should almost never tie: the birthday problem.
///
/// ```swift
/// // 200 clients' 3rd delays, in whole milliseconds, from U(0, 4 s): q = 1/4001
/// let result = TiesTest(values: thirdDelaysInMilliseconds, collisionProbability: 1.0 / 4001)
/// result.tiedPairs, result.expectedTiedPairs, result.pValue
/// ```
///
/// With N values and a probability q that two independent draws are equal (q = Σ pᵥ², which
/// is 1/K for K equally likely values), the number of equal pairs has mean C(N, 2)·q and is
/// close to Poisson when q is small (the birthday approximation). The p-value is the upper
/// tail P(Poisson(λ) ≥ T) = P(T, λ), the regularized lower incomplete gamma function.
/// Generators seeded from the same Unix second produce whole groups of equal delays.
public struct TiesTest: Sendable, CustomStringConvertible {
    /// Pairs of equal values (a value occurring k times gives k(k−1)/2).
    public let tiedPairs: Int
    /// C(N, 2)·q, the birthday expectation.
    public let expectedTiedPairs: Double
    /// N, the number of values.
    public let sampleSize: Int
    /// P(Poisson(λ) ≥ tiedPairs), one-sided: too many ties.
    public let pValue: Double
    /// The most repeated value and how often it occurs.
    public let mostRepeated: (value: Int64, count: Int)?

    /// Counts ties among `values` against collision probability q.
    public init(values: [Int64], collisionProbability: Double) {
        precondition((0...1).contains(collisionProbability), "ties: collision probability must be in [0, 1]")
        let sorted = values.sorted()
        var pairs = 0
        var most: (value: Int64, count: Int)?
        var start = 0
        while start < sorted.count {
            var end = start + 1
            while end < sorted.count && sorted[end] == sorted[start] { end += 1 }
            let group = end - start
            pairs += group * (group - 1) / 2
            if group > 1 && group > (most?.count ?? 1) { most = (sorted[start], group) }
            start = end
        }
        let n = Double(values.count)
        tiedPairs = pairs
        sampleSize = values.count
        expectedTiedPairs = n * (n - 1) / 2 * collisionProbability
        mostRepeated = most
        if pairs == 0 {
            pValue = 1
        } else if expectedTiedPairs <= 0 {
            pValue = 0
        } else {
            pValue = SpecialFunctions.regularizedGammaP(Double(pairs), expectedTiedPairs)
        }
    }

    public var description: String {
        "\(tiedPairs) tied pairs vs \(expectedTiedPairs.formatted(digits: 2)) expected (n = \(sampleSize), p = \(pValue.formattedPValue))"
    }
}
