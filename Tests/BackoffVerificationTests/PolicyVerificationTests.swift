import BackoffVerification
import LiveConnection
import Statistics
import TestScheduling
import Testing

@Suite("Every built-in policy follows its stated distribution", .computeBound)
struct PolicyVerificationTests {
    static let policies: [BackoffPolicy] = [
        .fullJitter(base: .seconds(1), cap: .seconds(30)),
        .equalJitter(base: .seconds(1), cap: .seconds(30)),
        .decorrelatedJitter(base: .seconds(1), cap: .seconds(30)),
        .proportionalJitter(),
        .exponential(base: .milliseconds(100), cap: .seconds(10)),
        .table(),
    ]

    @Test("pooled over attempts 1…10 (300 runs), every row of the report accepts", arguments: policies)
    func pooled(policy: BackoffPolicy) {
        let report = BackoffFit.verify(policy, attempts: 1...10, runs: 300, seed: 2026)
        #expect(report.accepted, "\(report.table())")
        #expect(report.sampleSize == 3000)
    }

    @Test(
        "per attempt, with the sample size that finds a 0.05 CDF departure 90 % of the time",
        arguments: [
            (policies[0], 1), (policies[0], 4), (policies[1], 3), (policies[2], 1), (policies[2], 6), (policies[3], 5),
        ]
    )
    func perAttempt(policy: BackoffPolicy, attempt: Int) {
        let report = BackoffFit.verify(
            policy, attempt: attempt, effect: 0.05, power: 0.9, alpha: 0.01, seed: UInt64(attempt))
        #expect(report.accepted, "\(report.table())")
        // ⌈((c_{α/8} + z_{0.9}/2) / 0.05)²⌉ with α/8 = 0.00125.
        #expect(
            report.sampleSize == PowerAnalysis.kolmogorovSmirnovSampleSize(effect: 0.05, alpha: 0.01 / 8, power: 0.9))
        #expect(report.verdicts.allSatisfy { $0.seed == UInt64(attempt) })
    }

    @Test("decorrelated jitter's atom at the cap is tested, and its size matches the claim")
    func clampAtCap() throws {
        let policy = BackoffPolicy.decorrelatedJitter(base: .seconds(1), cap: .seconds(30))
        let report = BackoffFit.verify(policy, attempts: 1...30, runs: 200, seed: 99)
        let cap = try #require(report.verdicts.first { $0.test == "mass at cap" })
        #expect(!cap.rejected, "\(cap)")
        // The pile-up is large: about a third of all delays over attempts 1–30 sit exactly at the cap.
        #expect(cap.statistic > 0.25 * Double(report.sampleSize), "\(cap)")
        #expect(report.verdicts.contains { $0.test == "KS, pooled, below cap" && !$0.rejected })
    }

    @Test(
        "false alarms: over 200 seeds a correct policy fails the whole report at most about α of the time",
        arguments: [BackoffPolicy.fullJitter(), .decorrelatedJitter()])
    func falseAlarmRate(policy: BackoffPolicy) {
        let alpha = 0.05, trials = 200
        let failures = (0..<UInt64(trials)).filter { seed in
            !BackoffFit.verify(policy, attempts: 1...6, runs: 40, seed: 7_000 + seed, alpha: alpha).accepted
        }.count
        // Bonferroni keeps the family-wise rate at or below α.
        let bound = PowerAnalysis.binomialAcceptanceRange(trials: trials, probability: alpha, tail: 1e-4).upperBound
        #expect(failures <= bound, "\(failures) of \(trials) reports rejected a correct policy; bound \(bound)")
    }

    @Test("a generator whose delays lean on the previous one is caught by the independence rows")
    func dependentDraws() {
        // Marginally uniform on [0, c] (a random walk modulo 1), but each draw is close to the last.
        let policy = BackoffPolicy.fullJitter(base: .seconds(4), cap: .seconds(4))
        var random = Xoshiro256StarStar(seed: 5)
        var u = random.unitDouble()
        let observations = (0..<600).map { index -> DelayObservation in
            u = (u + 0.1 * random.unitDouble()).truncatingRemainder(dividingBy: 1)
            return DelayObservation(run: index / 6, attempt: index % 6 + 1, delay: .nanoseconds(Int64(u * 4e9)))
        }
        let report = BackoffFit.verify(observations, claim: policy)
        let rejected = Set(report.rejections.map(\.test))
        #expect(
            rejected.contains("lag-1 autocorrelation") && rejected.contains("runs above/below median"),
            "\(report.table())")
    }
}

extension BackoffFit {
    /// `fit` for tests whose observations always suit the claim.
    static func verify(_ observations: [DelayObservation], claim: BackoffPolicy, alpha: Double = 0.01) -> FitReport {
        do {
            return try fit(observations, to: claim, alpha: alpha)
        } catch {
            Issue.record("fit refused the observations: \(error)")
            return FitReport(policy: claim, familyAlpha: alpha, verdicts: [], sampleSize: 0, seed: nil)
        }
    }
}
