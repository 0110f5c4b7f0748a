public import LiveConnection
import Statistics

/// Checks delays against a claimed `BackoffPolicy`: the distribution of every delay,
/// the atom at the cap, and independence within and across runs.
///
/// ```swift
/// // Delays from anywhere (a file, another client library):
/// let report = try BackoffFit.fit(observations, to: .fullJitter(base: .seconds(1), cap: .seconds(30)))
/// print(report.table())
///
/// // Or the policy's own draws, with the sample size the wanted power requires:
/// let verdict = BackoffFit.verify(.equalJitter(), attempt: 4, effect: 0.05, power: 0.9, alpha: 0.01, seed: 11)
/// #expect(verdict.accepted, "\(verdict)")
/// ```
///
/// Each delay is compared with the distribution the policy states *for that delay*
/// (after its attempt's failures, given the previous delay in its run). The continuous
/// parts are pooled by the probability integral transform U = F(D), which is U(0, 1)
/// under the claim whatever the attempt; for a clamped uniform (decorrelated jitter) the
/// transform is taken conditionally below the cap, U = F(D)/F(cap⁻), and the atom at the
/// cap gets its own binomial test. Independence tests use the randomized transform
/// (an atom's U is spread uniformly over its jump with a seeded generator), which is
/// exactly i.i.d. U(0, 1) under the claim even when each delay depends on the previous.
public enum BackoffFit {
    /// Attempts with at least this many continuous delays get their own KS row.
    public static let perAttemptMinimum = 30
    /// At most this many per-attempt rows (later attempts past the cap all look alike).
    public static let perAttemptRowLimit = 10
    /// The correlation across runs compares every pair of runs; past this many runs
    /// (44,850 pairs) it uses the first ones only.
    public static let crossCorrelationRunLimit = 300

    /// Fits recorded delays to the claim; see ``FitReport`` for the verdicts.
    ///
    /// - Parameters:
    ///   - observations: the delays, with their runs, attempts and previous delays.
    ///   - policy: the claim: its stated distribution for each delay is what is tested.
    ///   - alpha: the family-wise level; each of the m rows is judged at alpha / m.
    ///   - tolerance: how close a delay must be to a stated constant or to the cap to
    ///     count as equal (recorded delays are usually rounded, e.g. to milliseconds).
    ///   - seed: the seed that produced the sample, if known; it is reported in every
    ///     verdict, and also seeds the randomized transform.
    public static func fit(
        _ observations: [DelayObservation], to policy: BackoffPolicy, alpha: Double = 0.01,
        tolerance: Duration = .microseconds(500), seed: UInt64? = nil
    ) throws(DelayFileError) -> FitReport {
        precondition(alpha > 0 && alpha < 1, "alpha must be in (0, 1), got \(alpha)")
        if case .decorrelatedJitter = policy.kind,
            let orphan = observations.first(where: { $0.attempt > 1 && $0.previous == nil })
        {
            throw .unsupported(
                "decorrelated jitter draws each delay relative to the previous one, but run \(orphan.run) "
                    + "starts at attempt \(orphan.attempt): give attempt,delay pairs starting at attempt 1")
        }
        let classified = Classification(observations, policy: policy, tolerance: tolerance.nanoseconds, seed: seed ?? 0)
        var rows: [Verdict] = []
        func row(_ test: String, _ name: String, _ statistic: Double, _ p: Double, _ n: Int, _ worst: String) {
            rows.append(
                Verdict(
                    test: test, statisticName: name, statistic: statistic, pValue: p, sampleSize: n, alpha: alpha,
                    seed: seed, worstRegion: worst))
        }

        row(
            "within stated bounds", "outside", Double(classified.outside.count), classified.outside.isEmpty ? 1 : 0,
            observations.count, classified.outside.first ?? "none")
        if classified.pointCount > 0 {
            row(
                "constant delays", "mismatches", Double(classified.mismatches.count),
                classified.mismatches.isEmpty ? 1 : 0,
                classified.pointCount, classified.mismatches.first ?? "none")
        }
        let continuous = classified.continuous
        if continuous.count >= 5 {
            let ks = KolmogorovSmirnovTest(sample: continuous.map(\.u)) { min(1, max(0, $0)) }
            row(
                classified.hasAtom ? "KS, pooled, below cap" : "KS, pooled", "D", ks.statistic, ks.pValue,
                ks.sampleSize,
                classified.region(
                    quantile: ks.worstValue, empirical: ks.empiricalAtWorst, theoretical: ks.theoreticalAtWorst))
        }
        if continuous.count >= 25 {
            let chi = ChiSquareTest.uniform(unitValues: continuous.map(\.u))
            let bin = chi.worstBin
            row(
                classified.hasAtom ? "χ², pooled, below cap" : "χ², pooled", "χ²(\(chi.degreesOfFreedom))",
                chi.statistic,
                chi.pValue, chi.sampleSize,
                "U in [\(bin.lower.formatted(digits: 3)), \(bin.upper.formatted(digits: 3))): \(bin.observed) observed vs "
                    + "\(bin.expected.formatted(digits: 1)) expected\(classified.example(quantile: (bin.lower + bin.upper) / 2))"
            )
        }
        if !classified.capMasses.isEmpty {
            let (statistic, p, worst) = massAtCapTest(classified)
            row("mass at cap", "at cap", statistic, p, classified.capMasses.count, worst)
        }
        let attempts = Set(continuous.map(\.attempt)).sorted()
        if attempts.count > 1 {
            for attempt in attempts.prefix(perAttemptRowLimit) {
                let values = continuous.filter { $0.attempt == attempt }.map(\.u)
                guard values.count >= perAttemptMinimum else { continue }
                let ks = KolmogorovSmirnovTest(sample: values) { min(1, max(0, $0)) }
                row(
                    "KS, attempt \(attempt)", "D", ks.statistic, ks.pValue, ks.sampleSize,
                    classified.region(
                        quantile: ks.worstValue, empirical: ks.empiricalAtWorst, theoretical: ks.theoreticalAtWorst,
                        attempt: attempt))
            }
        }
        let sequence = classified.randomizedInRunOrder
        if sequence.count >= 10 {
            let lag = AutocorrelationTest(sequence: sequence, lag: 1)
            row(
                "lag-1 autocorrelation", "r₁", lag.coefficient, lag.pValue, lag.sampleSize,
                lag.coefficient > 0 ? "successive delays move together" : "successive delays alternate")
            let runs = RunsTest(sequence: sequence)
            row(
                "runs above/below median", "runs", Double(runs.runs), runs.pValue, runs.above + runs.below,
                "\(runs.runs) runs vs \(runs.expectedRuns.formatted(digits: 1)) expected")
        }
        if let ties = classified.tiesAcrossRuns() {
            row("ties across runs", "tied pairs", Double(ties.tied), ties.pValue, ties.sampleSize, ties.worst)
        }
        // The first `crossCorrelationRunLimit` runs: the test is quadratic in runs.
        let perRun = Array(classified.randomizedPerRun.filter { $0.count >= 3 }.prefix(crossCorrelationRunLimit))
        if perRun.count >= 2 {
            let cross = CrossCorrelationTest(sequences: perRun)
            let pair =
                cross.mostCorrelatedPair.map { "runs \($0.0) and \($0.1): r = \($0.2.formatted(digits: 3))" } ?? "none"
            row("correlation across runs", "mean r", cross.meanCorrelation, cross.pValue, cross.pairs, pair)
        }
        let perRowAlpha = alpha / Double(rows.count)
        for index in rows.indices { rows[index].alpha = perRowAlpha }
        return FitReport(policy: policy, familyAlpha: alpha, verdicts: rows, sampleSize: observations.count, seed: seed)
    }

    /// The number of observations at the cap against the claimed atom: exact binomial
    /// when every delay has the same atom, else the normal approximation of the Poisson
    /// binomial (decorrelated jitter's atom depends on the previous delay).
    static func massAtCapTest(_ classified: Classification) -> (Double, Double, String) {
        let masses = classified.capMasses
        let observed = classified.atCap
        let expected = masses.reduce(0, +)
        let where_ = "at the cap: \(observed) of \(masses.count) observed vs \(expected.formatted(digits: 1)) expected"
        if let first = masses.first, masses.allSatisfy({ abs($0 - first) < 1e-12 }) {
            let test = BinomialTest(successes: observed, trials: masses.count, probability: first)
            return (Double(observed), test.pValue, where_)
        }
        let variance = masses.reduce(0) { $0 + $1 * (1 - $1) }
        let z = variance > 0 ? (Double(observed) - expected) / variance.squareRoot() : 0
        return (Double(observed), SpecialFunctions.normalTwoSided(z), where_)
    }
}

extension BackoffFit {
    /// Draws `runs` runs of the policy's delays over `attempts` with `seed` and fits them.
    public static func verify(
        _ policy: BackoffPolicy, attempts: ClosedRange<Int>, runs: Int, seed: UInt64, alpha: Double = 0.01
    ) -> FitReport {
        let observations = policy.observations(runs: runs, attempts: attempts, seed: seed)
        // The policy's own draws always satisfy the preconditions `fit` checks.
        do {
            return try fit(observations, to: policy, alpha: alpha, tolerance: .zero, seed: seed)
        } catch {
            preconditionFailure("a policy's own draws were unfit for its claim: \(error)")
        }
    }

    /// Verifies the delay after `attempt` failures with the sample size that detects a
    /// CDF departure of `effect` with probability `power` at level `alpha` (see
    /// `kolmogorovSmirnovSampleSize(effect:alpha:power:)`).
    public static func verify(
        _ policy: BackoffPolicy, attempt: Int, effect: Double, power: Double, alpha: Double, seed: UInt64
    ) -> FitReport {
        // The KS row is judged at the report's Bonferroni level α/m, and a one-attempt
        // report has at most 8 rows, so sizing for α/8 keeps the promised power.
        let n = PowerAnalysis.kolmogorovSmirnovSampleSize(effect: effect, alpha: alpha / 8, power: power)
        return verify(policy, attempts: attempt...attempt, runs: n, seed: seed, alpha: alpha)
    }
}
