import Foundation

/// The exact two-sided binomial test: is `successes` out of `trials` consistent with `p`?
///
/// ```swift
/// // 412 of 1000 decorrelated-jitter delays sat exactly at the cap; the policy says 0.4.
/// let result = BinomialTest(successes: 412, trials: 1000, probability: 0.4)
/// result.pValue   // ≈ 0.45: consistent
/// ```
///
/// The p-value sums the probabilities of every outcome no more likely than the observed
/// one (scipy's `binomtest` default, with its 1 + 10⁻⁷ tolerance on ties), computed from
/// log-probabilities so that a million trials cost a million cheap steps.
public struct BinomialTest: Sendable, CustomStringConvertible {
    /// The observed count.
    public let successes: Int
    /// The number of trials.
    public let trials: Int
    /// The claimed success probability.
    public let probability: Double
    /// The two-sided p-value.
    public let pValue: Double

    /// Tests `successes` out of `trials` against `probability`.
    public init(successes: Int, trials: Int, probability: Double) {
        precondition(
            trials > 0 && (0...trials).contains(successes), "binomial test: need 0 ≤ successes ≤ trials, trials > 0")
        precondition((0...1).contains(probability), "binomial test: probability must be in [0, 1]")
        self.successes = successes
        self.trials = trials
        self.probability = probability
        if probability == 0 {
            pValue = successes == 0 ? 1 : 0
        } else if probability == 1 {
            pValue = successes == trials ? 1 : 0
        } else {
            let observed = Self.logProbability(successes, trials, probability)
            let threshold = observed + log1p(1e-7)
            var total = 0.0
            for k in 0...trials {
                let logP = Self.logProbability(k, trials, probability)
                if logP <= threshold { total += exp(logP) }
            }
            pValue = min(1, total)
        }
    }

    /// log P(X = k) for X ~ Binomial(n, p).
    public static func logProbability(_ k: Int, _ n: Int, _ p: Double) -> Double {
        SpecialFunctions.logFactorial(n) - SpecialFunctions.logFactorial(k) - SpecialFunctions.logFactorial(n - k)
            + Double(k) * log(p) + Double(n - k) * log1p(-p)
    }

    /// The observed proportion.
    public var proportion: Double { Double(successes) / Double(trials) }

    public var description: String {
        "\(successes)/\(trials) = \(proportion.formatted(digits: 4)) vs \(probability.formatted(digits: 4)) (p = \(pValue.formattedPValue))"
    }
}
