import BackoffVerification
import Foundation
import LiveConnection
import Statistics
import Testing

/// Real defects found in client libraries, modelled faithfully, and the rows that catch them.
@Suite("Defects in the wild are caught")
struct DefectDetectionTests {
    /// socket.io's backo2 `duration()`: one `Math.random()` gives both the magnitude of the
    /// deviation and, through its first decimal digit, the sign — so the sign is a
    /// function of the magnitude, and every other tenth of the jitter band is empty.
    struct Backo2 {
        var milliseconds = 1000.0
        var factor = 2.0
        var jitter = 0.5
        var maximum = 1e9
        var attempts = 0

        mutating func duration(using random: inout some RandomSource) -> Duration {
            var ms = milliseconds * pow(factor, Double(attempts))
            attempts += 1
            let rand = random.unitDouble()
            let deviation = floor(rand * jitter * ms)
            ms = (Int(floor(rand * 10)) & 1) == 0 ? ms - deviation : ms + deviation
            return .milliseconds(Int64(min(ms, maximum)))  // `| 0`: whole milliseconds
        }
    }

    static let backo2Claim = BackoffPolicy.proportionalJitter(
        initial: .seconds(1), multiplier: 2, jitter: 0.5, maximum: .seconds(1_000_000))

    @Test("socket.io backo2's comb-shaped jitter is rejected by χ², while the claimed ±50 % jitter passes")
    func backo2Comb() {
        var random = Xoshiro256StarStar(seed: 2)
        var observations: [DelayObservation] = []
        for run in 0..<250 {
            var backoff = Backo2()
            var previous: Duration?
            for attempt in 1...4 {
                let delay = backoff.duration(using: &random)
                observations.append(DelayObservation(run: run, attempt: attempt, delay: delay, previous: previous))
                previous = delay
            }
        }
        let report = BackoffFit.verify(observations, claim: Self.backo2Claim)
        let chi = report.verdicts.first { $0.test == "χ², pooled" }
        #expect(chi?.rejected == true, "\(report.table())")
        #expect((chi?.pValue ?? 1) < 1e-12)
        #expect(report.verdicts.first { $0.test == "within stated bounds" }?.rejected == false)

        // The honest generator with the same claim, the same size and the same rounding passes.
        let honest = Self.backo2Claim.observations(runs: 250, attempts: 1...4, seed: 2).map {
            DelayObservation(
                run: $0.run, attempt: $0.attempt, delay: .milliseconds($0.delay.nanoseconds / 1_000_000), previous: nil)
        }
        let control = BackoffFit.verify(honest, claim: Self.backo2Claim)
        #expect(control.accepted, "\(control.table())")
    }

    @Test("decorrelated jitter's pile-up at the cap is rejected when claimed as full jitter, worst near the top")
    func decorrelatedPileUp() throws {
        let data = BackoffPolicy.decorrelatedJitter(base: .seconds(1), cap: .seconds(30))
            .observations(runs: 200, attempts: 6...12, seed: 8)
        let report = BackoffFit.verify(data, claim: .fullJitter(base: .seconds(1), cap: .seconds(30)))
        let ks = try #require(report.verdicts.first { $0.test == "KS, pooled" })
        #expect(ks.rejected, "\(report.table())")
        #expect(ks.worstRegion.hasPrefix("U ≈ 0.9") || ks.worstRegion.hasPrefix("U ≈ 1.0"), "\(ks.worstRegion)")
    }

    @Test("a decorrelated jitter that remembers the unclamped sleep piles more at the cap than it claims")
    func decorrelatedUnclampedMemory() throws {
        let base = Duration.seconds(1), cap = Duration.seconds(30)
        var random = Xoshiro256StarStar(seed: 12)
        var observations: [DelayObservation] = []
        for run in 0..<150 {
            var sleep = base  // the bug: the next range grows from the unclamped value
            var previous: Duration?
            for attempt in 1...20 {
                sleep = random.duration(in: base...Duration.nanoseconds(sleep.nanoseconds * 3))
                let delay = min(cap, sleep)
                observations.append(DelayObservation(run: run, attempt: attempt, delay: delay, previous: previous))
                previous = delay
            }
        }
        let report = BackoffFit.verify(observations, claim: .decorrelatedJitter(base: base, cap: cap))
        let atCap = try #require(report.verdicts.first { $0.test == "mass at cap" })
        #expect(atCap.rejected, "\(report.table())")
    }

    @Test("clients seeded from the same Unix second share their delays: ties and correlation reject")
    func sameSecondSeeds() {
        let policy = BackoffPolicy.fullJitter(base: .seconds(1), cap: .seconds(30))
        var observations: [DelayObservation] = []
        for client in 0..<60 {
            // 20 clients start in each of three seconds and seed their generator from it.
            var random = Xoshiro256StarStar(seed: 1_764_500_000 + UInt64(client / 20))
            var previous: Duration?
            for attempt in 1...8 {
                let delay = policy.delay(afterFailures: attempt, previous: previous, using: &random)
                observations.append(DelayObservation(run: client, attempt: attempt, delay: delay, previous: previous))
                previous = delay
            }
        }
        let report = BackoffFit.verify(observations, claim: policy)
        let rejected = Set(report.rejections.map(\.test))
        #expect(rejected.contains("ties across runs"), "\(report.table())")
        #expect(rejected.contains("correlation across runs"), "\(report.table())")
        // Independently seeded clients pass the same rows.
        let control = BackoffFit.verify(
            policy.observations(runs: 60, attempts: 1...8, seed: 1_764_500_000), claim: policy)
        #expect(control.accepted, "\(control.table())")
    }

    @Test("no jitter at all (Phoenix-style fixed exponential) fails a jitter claim everywhere it can")
    func noJitter() throws {
        let data = BackoffPolicy.exponential(base: .seconds(1), cap: .seconds(30)).observations(
            runs: 50, attempts: 1...8, seed: 1)
        let report = BackoffFit.verify(data, claim: .fullJitter(base: .seconds(1), cap: .seconds(30)))
        let ks = try #require(report.verdicts.first { $0.test == "KS, pooled" })
        #expect(ks.rejected && ks.statistic > 0.95, "\(report.table())")
        #expect(report.rejections.contains { $0.test == "ties across runs" })
        // Claimed honestly as exponential, the same data passes.
        #expect(BackoffFit.verify(data, claim: .exponential(base: .seconds(1), cap: .seconds(30))).accepted)
    }
}
