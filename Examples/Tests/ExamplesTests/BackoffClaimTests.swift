// docs/backoff.md, "In Swift tests": the statistics products used from another package.
import BackoffVerification
import Foundation
import LiveConnection
import Statistics
import Testing

@Suite("backoff claims, verified from a user's package")
struct BackoffClaimTests {
    @Test("full jitter follows its claim at attempt 4, with the sample the power analysis asks for")
    func myPolicyFollowsItsClaim() {
        let report = BackoffFit.verify(.fullJitter(), attempt: 4, effect: 0.05, power: 0.9, alpha: 0.01, seed: 7)
        #expect(report.accepted, "\(report.table())")
    }

    @Test("delays recorded by another program follow decorrelated jitter (docs/examples/decorrelated.txt)")
    func recordedDelaysFollowTheClaim() throws {
        let observations = try DelayFile.parse(
            String(contentsOfFile: Self.example("decorrelated.txt"), encoding: .utf8))
        let report = try BackoffFit.fit(observations, to: .decorrelatedJitter())
        #expect(report.accepted, "\(report.table())")
    }

    @Test("the manager's own delays, recorded in simulation, follow its configured policy")
    func theManagerWaitsWhatItsPolicyClaims() throws {
        var configuration = ConnectionConfiguration()
        configuration.backoff = .decorrelatedJitter(base: .seconds(1), cap: .seconds(30))
        let observations = try ManagerDelays.record(configuration: configuration, runs: 200, attempts: 8, seed: 1)
        let report = try BackoffFit.fit(observations, to: configuration.backoff)
        #expect(report.accepted, "\(report.table())")
    }

    @Test("backo2's comb is rejected when claimed as ±50 % jitter")
    func combIsRejected() throws {
        let observations = try DelayFile.parse(String(contentsOfFile: Self.example("backo2.txt"), encoding: .utf8))
        let claim = BackoffPolicy.proportionalJitter(
            initial: .seconds(1), multiplier: 2, jitter: 0.5, maximum: .seconds(1_000_000))
        let report = try BackoffFit.fit(observations, to: claim)
        #expect(!report.accepted, "\(report.table())")
    }

    @Test("Statistics on its own: a KS test rejects a shifted sample and accepts the true one")
    func kolmogorovSmirnovFromStatistics() {
        var random = Xoshiro256StarStar(seed: 11)
        let uniform = (0..<500).map { _ in random.unitDouble() }
        let shifted = uniform.map { min(1, $0 + 0.15) }
        let cdf: (Double) -> Double = { min(1, max(0, $0)) }
        #expect(KolmogorovSmirnovTest(sample: uniform, cdf: cdf).pValue > 0.01)
        #expect(KolmogorovSmirnovTest(sample: shifted, cdf: cdf).pValue < 1e-6)
    }

    /// A file of docs/examples/, found from this source file's place in the repository.
    static func example(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../../docs/examples/\(name)").standardized.path
    }
}
