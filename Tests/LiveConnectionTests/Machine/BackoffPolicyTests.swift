import Testing

@testable import LiveConnection

/// The backoff policies: the delays they draw and the distributions they claim.
@Suite("Backoff policies")
struct BackoffPolicyTests {
    static let builtIns: [BackoffPolicy] = [
        .fullJitter(), .equalJitter(), .decorrelatedJitter(), .proportionalJitter(), .exponential(), .table(),
    ]

    @Test("the fixed table gives 0, 1, 2, 4, 8, 16, 30, 30, 30 s after 0…8 failures")
    func fixedTable() {
        var random = Xoshiro256StarStar(seed: 1)
        let delays = (0...8).map { BackoffPolicy.table().delay(afterFailures: $0, previous: nil, using: &random) }
        #expect(delays == [0, 1, 2, 4, 8, 16, 30, 30, 30].map { .seconds($0) })
    }

    @Test("every policy waits 0 after 0 failures (the first attempt is immediate)", arguments: builtIns)
    func zeroFailuresZeroDelay(policy: BackoffPolicy) {
        #expect(policy.distribution(afterFailures: 0, previous: nil) == .constant(.zero))
    }

    @Test(
        "full jitter draws U(0, min(30 s, 1 s·2^(n−1)))",
        arguments: [(1, 1), (2, 2), (3, 4), (4, 8), (5, 16), (6, 30), (7, 30), (60, 30), (10_000, 30)])
    func fullJitterCeilings(failures: Int, ceilingSeconds: Int64) {
        #expect(
            BackoffPolicy.fullJitter().distribution(afterFailures: failures, previous: nil)
                == .uniform(.zero ... .seconds(ceilingSeconds)))
    }

    @Test(
        "equal jitter draws U(c/2, c) with the full-jitter ceiling c",
        arguments: [(1, 1), (3, 4), (5, 16), (6, 30), (100, 30)])
    func equalJitterRanges(failures: Int, ceilingSeconds: Int64) {
        let ceiling = Duration.seconds(ceilingSeconds)
        #expect(
            BackoffPolicy.equalJitter().distribution(afterFailures: failures, previous: nil)
                == .uniform(ceiling / 2...ceiling))
    }

    @Test(
        "exponential without jitter is exactly the ceiling",
        arguments: [(1, 1), (2, 2), (4, 8), (6, 30), (1_000, 30)])
    func exponentialIsConstant(failures: Int, ceilingSeconds: Int64) {
        #expect(
            BackoffPolicy.exponential().distribution(afterFailures: failures, previous: nil)
                == .constant(.seconds(ceilingSeconds)))
    }

    @Test(
        "gRPC's ±20 % jitter: U(0.8·c, 1.2·c) with c = min(120 s, 1 s·1.6^(n−1))",
        arguments: [(1, 1.0), (2, 1.6), (3, 2.56), (4, 4.096), (11, 109.95116277760006), (12, 120.0), (500, 120.0)])
    func proportionalJitterRanges(failures: Int, ceilingSeconds: Double) throws {
        let distribution = BackoffPolicy.proportionalJitter().distribution(afterFailures: failures, previous: nil)
        guard case .uniform(let range) = distribution else {
            Issue.record("expected a uniform distribution, got \(distribution)")
            return
        }
        // Within a nanosecond of the exact bounds (the policy truncates to whole nanoseconds).
        #expect(abs(range.lowerBound.seconds - 0.8 * ceilingSeconds) < 2e-9, "\(range)")
        #expect(abs(range.upperBound.seconds - 1.2 * ceilingSeconds) < 2e-9, "\(range)")
    }

    @Test(
        "decorrelated jitter draws min(cap, U(base, 3·previous)), previous starting at base",
        arguments: [(nil, 3), (1, 3), (4, 12), (9, 27), (20, 60)] as [(Int64?, Int64)])
    func decorrelatedUsesPrevious(previousSeconds: Int64?, upperSeconds: Int64) {
        let policy = BackoffPolicy.decorrelatedJitter(base: .seconds(1), cap: .seconds(30))
        let distribution = policy.distribution(afterFailures: 2, previous: previousSeconds.map { .seconds($0) })
        #expect(distribution == .clampedUniform(.seconds(1) ... .seconds(upperSeconds), cap: .seconds(30)))
    }

    @Test("decorrelated jitter piles the mass above the cap at the cap")
    func decorrelatedMassAtCap() {
        let distribution = BackoffPolicy.decorrelatedJitter().distribution(afterFailures: 3, previous: .seconds(20))
        // U(1 s, 60 s) clamped at 30 s: P(≥ 30 s) = 30 / 59.
        #expect(abs(distribution.massAtCap - 30.0 / 59.0) < 1e-12)
        #expect(distribution.bounds == .seconds(1) ... .seconds(30))
    }

    @Test(
        "every built-in policy's draws lie within the bounds of the distribution it claims, and within maximumDelay",
        arguments: builtIns, [1, 2, 3, 5, 8, 13, 40] as [Int])
    func drawsWithinClaimedBounds(policy: BackoffPolicy, failures: Int) {
        var random = Xoshiro256StarStar(seed: UInt64(failures))
        var previous: Duration? = nil
        for _ in 0..<500 {
            let distribution = policy.distribution(afterFailures: failures, previous: previous)
            let delay = policy.delay(afterFailures: failures, previous: previous, using: &random)
            #expect(distribution.bounds.contains(delay), "\(policy) drew \(delay) outside \(distribution)")
            #expect(delay >= .zero && delay <= policy.maximumDelay, "\(policy) drew \(delay)")
            previous = delay
        }
    }

    @Test("draws spread over the claimed range: both ends of every jittered range are approached", arguments: builtIns)
    func drawsCoverTheRange(policy: BackoffPolicy) {
        var random = Xoshiro256StarStar(seed: 99)
        let distribution = policy.distribution(afterFailures: 4, previous: .seconds(5))
        let bounds = distribution.bounds
        let draws = (0..<2_000).map { _ in distribution.draw(using: &random) }
        let width = (bounds.upperBound - bounds.lowerBound).seconds
        // For a constant both checks are trivially true; for a uniform of 2000 draws, the
        // extremes come within 1 % of the ends with overwhelming probability (fixed seed).
        #expect((draws.min()! - bounds.lowerBound).seconds <= width * 0.01)
        #expect((bounds.upperBound - draws.max()!).seconds <= width * 0.01)
    }

    @Test("the same seed draws the same delays")
    func drawsAreReproducible() {
        func run() -> [Duration] {
            var random = Xoshiro256StarStar(seed: 2026)
            return (1...20).map { BackoffPolicy.fullJitter().delay(afterFailures: $0, previous: nil, using: &random) }
        }
        #expect(run() == run())
    }

    @Test("huge failure counts and bases saturate instead of overflowing")
    func saturates() {
        let policy = BackoffPolicy.exponential(base: .seconds(1_000_000_000), cap: .seconds(9_000_000_000))
        #expect(policy.distribution(afterFailures: 200, previous: nil) == .constant(.seconds(9_000_000_000)))
        let decorrelated = BackoffPolicy.decorrelatedJitter(base: .seconds(1), cap: .seconds(30))
        #expect(
            decorrelated.distribution(afterFailures: 1, previous: .seconds(9_000_000_000)).bounds.upperBound
                == .seconds(30))
    }
}
