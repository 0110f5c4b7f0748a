/// Are several clients' delay sequences independent of each other?
///
/// ```swift
/// // rows: clients; columns: the i-th delay of each, as probability-integral transforms
/// let result = CrossCorrelationTest(sequences: pitsPerClient)
/// result.meanCorrelation, result.pValue, result.mostCorrelatedPair
/// ```
///
/// For every pair of clients (a, b) the Pearson correlation r_ab of their i-th values over
/// the attempts they share. Under independence each r_ab has mean ≈ 0 and variance ≈ 1/m
/// (m shared attempts), and different pairs are uncorrelated with each other even when they
/// share a client, so the mean over P pairs has variance ≈ 1/(m·P) (pairs weighted by m):
/// z = Σ m_ab r_ab / √(Σ m_ab). Clients that share a seed (created in the same Unix second)
/// have r = 1 and drag the mean up. Sequences shorter than 3 are skipped.
public struct CrossCorrelationTest: Sendable, CustomStringConvertible {
    /// Pairs of sequences compared (each with at least 3 shared positions).
    public let pairs: Int
    /// The unweighted mean of the pairwise correlations.
    public let meanCorrelation: Double
    /// Σ m·r / √(Σ m): standard normal under independence.
    public let z: Double
    /// Two-sided p-value of `z`.
    public let pValue: Double
    /// The pair of sequence indices with the largest |r|, and that r.
    public let mostCorrelatedPair: (Int, Int, Double)?

    /// Compares every pair of `sequences` over their common prefix.
    public init(sequences: [[Double]]) {
        var pairs = 0
        var weighted = 0.0, weights = 0.0, sum = 0.0
        var most: (Int, Int, Double)?
        for a in sequences.indices {
            for b in sequences.indices where b > a {
                let m = min(sequences[a].count, sequences[b].count)
                guard m >= 3 else { continue }
                let r = Self.pearson(Array(sequences[a].prefix(m)), Array(sequences[b].prefix(m)))
                pairs += 1
                sum += r
                weighted += Double(m) * r
                weights += Double(m)
                if most == nil || abs(r) > abs(most!.2) { most = (a, b, r) }
            }
        }
        self.pairs = pairs
        meanCorrelation = pairs > 0 ? sum / Double(pairs) : 0
        z = weights > 0 ? weighted / weights.squareRoot() : 0
        pValue = SpecialFunctions.normalTwoSided(z)
        mostCorrelatedPair = most
    }

    /// The Pearson correlation; 0 when either side is constant (no linear evidence).
    public static func pearson(_ x: [Double], _ y: [Double]) -> Double {
        let n = Double(x.count)
        let meanX = x.reduce(0, +) / n, meanY = y.reduce(0, +) / n
        var sxy = 0.0, sxx = 0.0, syy = 0.0
        for index in x.indices {
            let dx = x[index] - meanX, dy = y[index] - meanY
            sxy += dx * dy
            sxx += dx * dx
            syy += dy * dy
        }
        guard sxx > 0 && syy > 0 else { return 0 }
        return sxy / (sxx * syy).squareRoot()
    }

    public var description: String {
        "mean r = \(meanCorrelation.formatted(digits: 4)) over \(pairs) pairs (z = \(z.formatted(digits: 2)), p = \(pValue.formattedPValue))"
    }
}
