import BackoffVerification
import LiveConnection
import PackageFiles
import Testing

/// The delay files in docs/examples (written by Python, not by our code) keep the verdicts
/// docs/backoff.md shows for them.
@Suite("The documented example files")
struct ExampleFilesTests {
    static func observations(_ name: String) throws -> [DelayObservation] {
        try DelayFile.parse(PackageFiles.text("docs/examples/\(name)"))
    }

    static let backo2Claim = BackoffPolicy.proportionalJitter(
        initial: .seconds(1), multiplier: 2, jitter: 0.5, maximum: .seconds(1_000_000))

    @Test("backo2.txt: χ² rejects the comb; proportional.txt: the same claim holds")
    func backo2() throws {
        let comb = try BackoffFit.fit(Self.observations("backo2.txt"), to: Self.backo2Claim)
        #expect(comb.rejections.contains { $0.test == "χ², pooled" }, "\(comb.table())")
        let honest = try BackoffFit.fit(Self.observations("proportional.txt"), to: Self.backo2Claim)
        #expect(honest.accepted, "\(honest.table())")
    }

    @Test("same-second.txt: ties and correlation across runs reject")
    func sameSecond() throws {
        let report = try BackoffFit.fit(Self.observations("same-second.txt"), to: .fullJitter())
        let rejected = Set(report.rejections.map(\.test))
        #expect(rejected.isSuperset(of: ["ties across runs", "correlation across runs"]), "\(report.table())")
    }

    @Test("decorrelated.txt: consistent with decorrelated jitter, its pile-up at the cap included")
    func decorrelated() throws {
        let report = try BackoffFit.fit(Self.observations("decorrelated.txt"), to: .decorrelatedJitter())
        #expect(report.accepted, "\(report.table())")
        #expect(report.verdicts.contains { $0.test == "mass at cap" && $0.statistic > 500 })
    }
}
