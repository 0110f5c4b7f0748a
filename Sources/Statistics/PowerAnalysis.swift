import Foundation

/// How many samples a test needs to see a given departure with a given probability.
///
/// ```swift
/// // Detect any CDF that is 0.05 away from the claim somewhere, at α = 0.01, 90 % of the time:
/// let n = PowerAnalysis.kolmogorovSmirnovSampleSize(effect: 0.05, alpha: 0.01, power: 0.9)
/// // n = ⌈((c_α + z_β/2) / ε)²⌉ = ⌈((1.628 + 0.641) / 0.05)²⌉ = 2059
/// ```
///
/// The derivation (documented in docs/backoff.md): suppose the true CDF G is ε away from
/// the claimed F at some point x*. The KS statistic is at least |Fₙ(x*) − F(x*)|, and
/// n·Fₙ(x*) is Binomial(n, G(x*)), so √n(Fₙ(x*) − F(x*)) ≈ √n·ε + σZ with
/// σ² = G(x*)(1 − G(x*)) ≤ 1/4. The test rejects when √n·D > c_α (the asymptotic critical
/// value, itself slightly above the exact one for finite n, so this errs safe). It
/// therefore rejects with probability at least 1 − β as soon as √n·ε − z_β·σ ≥ c_α, and
/// σ ≤ 1/2 gives n ≥ ((c_α + z_β/2)/ε)². The often quoted ((c_α + z_β)/ε)² is the same
/// bound with σ ≤ 1 — looser, also correct. Both are bounds for the worst placed point; a
/// departure spread over a region is found sooner.
public enum PowerAnalysis {
    /// The sample size at which KS detects a CDF departure of `effect` (sup-distance) at
    /// level `alpha` with probability at least `power`.
    public static func kolmogorovSmirnovSampleSize(effect: Double, alpha: Double, power: Double) -> Int {
        precondition(effect > 0 && effect < 1, "effect must be in (0, 1), got \(effect)")
        precondition(power > 0 && power < 1, "power must be in (0, 1), got \(power)")
        let critical = KolmogorovDistribution.asymptoticCriticalValue(alpha: alpha)
        let zBeta = SpecialFunctions.normalQuantile(power)
        let root = (critical + zBeta / 2) / effect
        return Int((root * root).rounded(.up))
    }

    /// The smallest sup-distance KS detects with the given power at n samples (the inverse).
    public static func kolmogorovSmirnovDetectableEffect(sampleSize n: Int, alpha: Double, power: Double) -> Double {
        precondition(n > 0, "sample size must be positive")
        let critical = KolmogorovDistribution.asymptoticCriticalValue(alpha: alpha)
        let zBeta = SpecialFunctions.normalQuantile(power)
        return (critical + zBeta / 2) / Double(n).squareRoot()
    }

    /// Bounds [low, high] such that a Binomial(trials, p) count falls outside with
    /// probability at most `tail` on each side — for property tests of false-alarm rates
    /// that are deterministic (fixed seeds) yet meaningful.
    public static func binomialAcceptanceRange(trials: Int, probability p: Double, tail: Double) -> ClosedRange<Int> {
        var cumulative = 0.0
        var low = 0
        for k in 0...trials {
            let mass = exp(BinomialTest.logProbability(k, trials, p))
            if cumulative + mass > tail { low = k; break }
            cumulative += mass
        }
        cumulative = 0
        var high = trials
        for k in stride(from: trials, through: 0, by: -1) {
            let mass = exp(BinomialTest.logProbability(k, trials, p))
            if cumulative + mass > tail { high = k; break }
            cumulative += mass
        }
        return low...high
    }
}
