import LiveConnection
import LiveConnectionSimulator
import Testing

/// The publications' distributions, worked by hand (never against `BackoffPolicy.distribution`),
/// the transform that pools them, and the pool's judgement of right and wrong draws.
@Suite("Backoff distributions as published, and the pooled judgement of many delays")
struct PublishedDistributionTests {
    let spec = Specification.seedDocuments

    @Test("full jitter U(0, c), equal jitter U(c/2, c), no jitter exactly c, with c = min(cap, base·2^(n−1))")
    func doublingFamilies() {
        let full = BackoffPolicy.fullJitter(base: .seconds(1), cap: .seconds(30))
        #expect(spec.publishedDelay(full, afterFailures: 3, previous: nil) == .uniform(.zero ... .seconds(4)))
        #expect(spec.publishedDelay(full, afterFailures: 9, previous: nil) == .uniform(.zero ... .seconds(30)))
        #expect(spec.publishedDelay(full, afterFailures: 0, previous: nil) == .constant(.zero))
        let equal = BackoffPolicy.equalJitter(base: .milliseconds(500), cap: .seconds(10))
        #expect(spec.publishedDelay(equal, afterFailures: 3, previous: nil) == .uniform(.seconds(1) ... .seconds(2)))
        let exponential = BackoffPolicy.exponential(base: .seconds(1), cap: .seconds(30))
        #expect(spec.publishedDelay(exponential, afterFailures: 5, previous: nil) == .constant(.seconds(16)))
    }

    @Test("decorrelated jitter min(cap, U(base, 3·sleep)): an atom at the cap once 3·sleep passes it")
    func decorrelated() {
        let policy = BackoffPolicy.decorrelatedJitter(base: .seconds(1), cap: .seconds(30))
        #expect(
            spec.publishedDelay(policy, afterFailures: 1, previous: nil)
                == .clampedUniform(.seconds(1) ... .seconds(3), cap: .seconds(30)))
        let late = spec.publishedDelay(policy, afterFailures: 6, previous: .seconds(20))
        #expect(late == .clampedUniform(.seconds(1) ... .seconds(60), cap: .seconds(30)))
        // P(at cap) = (60 − 30) / (60 − 1).
        #expect(abs(late.massAtCap - 30.0 / 59.0) < 1e-12)
    }

    @Test("gRPC's ±r jitter U(c(1−r), c(1+r)), c = min(max, initial·multiplier^(n−1)); a table's n-th entry")
    func proportionalAndTable() throws {
        let grpc = BackoffPolicy.proportionalJitter()  // 1 s, ×1.6, ±20 %, 120 s
        guard case .uniform(let second) = spec.publishedDelay(grpc, afterFailures: 2, previous: nil) else {
            Issue.record("not uniform")
            return
        }
        #expect(abs(second.lowerBound.nanoseconds - 1_280_000_000) <= 1)
        #expect(abs(second.upperBound.nanoseconds - 1_920_000_000) <= 1)
        let table = BackoffPolicy(.table(Specification.seedTable))
        #expect(spec.publishedDelay(table, afterFailures: 4, previous: nil) == .constant(.seconds(8)))
        #expect(spec.publishedDelay(table, afterFailures: 40, previous: nil) == .constant(.seconds(30)))
    }

    @Test("the transform is F(delay) below the cap and spread over the jump at it; nil for a constant")
    func transform() throws {
        let uniform = DelayDistribution.uniform(.seconds(1) ... .seconds(3))
        #expect(Specification.transform(of: .seconds(2), under: uniform, spread: 0.9) == 0.5)
        let clamped = DelayDistribution.clampedUniform(.seconds(1) ... .seconds(5), cap: .seconds(3))
        #expect(Specification.transform(of: .seconds(2), under: clamped, spread: 0.9) == 0.25)
        // At the cap: F(cap⁻) = 0.5, the jump to 1 spread by the judge's draw.
        #expect(Specification.transform(of: .seconds(3), under: clamped, spread: 0) == 0.5)
        #expect(Specification.transform(of: .seconds(3), under: clamped, spread: 0.5) == 0.75)
        #expect(Specification.transform(of: .seconds(4), under: .constant(.seconds(4)), spread: 0.5) == nil)
        let atCap = try #require(Specification.atom(of: .seconds(3), under: clamped))
        #expect(atCap.mass == 0.5 && atCap.hit)
        #expect(Specification.atom(of: .seconds(2), under: clamped)?.hit == false)
        #expect(Specification.atom(of: .seconds(2), under: uniform) == nil)
    }

    /// Delays of `policy` after `failures`, drawn by `draw`, pooled as the monitor pools them.
    func pooled(
        _ policy: BackoffPolicy, failures: Int, count: Int,
        draw: (inout Xoshiro256StarStar, DelayDistribution) -> Duration
    ) -> BackoffDelayPool {
        var random = Xoshiro256StarStar(seed: 42)
        var spread = Xoshiro256StarStar(seed: 7)
        var pool = BackoffDelayPool()
        let published = spec.publishedDelay(policy, afterFailures: failures, previous: .seconds(30))
        for _ in 0..<count {
            let delay = draw(&random, published)
            if let u = Specification.transform(of: delay, under: published, spread: spread.unitDouble()) {
                pool.add(
                    transform: u, family: policy.family, failures: failures,
                    atom: Specification.atom(of: delay, under: published))
            }
        }
        return pool
    }

    @Test("draws that follow the publication pass; the same range drawn wrongly does not")
    func poolJudges() {
        let full = BackoffPolicy.fullJitter(base: .seconds(1), cap: .seconds(30))
        let right = pooled(full, failures: 4, count: 5_000) { random, published in published.draw(using: &random) }
        #expect(right.rejections().isEmpty, "\(right.verdicts())")
        // Inside the range, the wrong shape: half the range (a narrowed draw).
        let narrowed = pooled(full, failures: 4, count: 2_000) { random, _ in
            random.duration(in: .zero ... .seconds(4)) / 2
        }
        #expect(narrowed.rejections().count == 1, "\(narrowed.verdicts())")

        let decorrelated = BackoffPolicy.decorrelatedJitter(base: .seconds(1), cap: .seconds(30))
        let clamped = pooled(decorrelated, failures: 5, count: 5_000) { random, published in
            published.draw(using: &random)
        }
        #expect(clamped.rejections().isEmpty, "\(clamped.verdicts())")
        // Uniform up to the cap instead of clamped: no atom at the cap, every delay in range.
        let noAtom = pooled(decorrelated, failures: 5, count: 2_000) { random, _ in
            random.duration(in: .seconds(1) ... .seconds(30))
        }
        // Both the χ² of the group and the count at the cap (0 of about 1,000 expected).
        #expect(
            noAtom.rejections().map(\.subject) == [
                "decorrelated-jitter after 5 failures", "decorrelated-jitter at the cap",
            ])
    }

    @Test("pools add up, survive a report's keys, and leave groups too small untested")
    func poolBookkeeping() throws {
        var pool = BackoffDelayPool()
        for index in 0..<150 { pool.add(transform: Double(index) / 150, family: .table, failures: 12) }
        pool.add(transform: 0.5, family: .exponential, failures: 1)
        #expect(pool.total == 151)
        #expect(pool.verdicts().map(\.subject) == ["table after 7+ failures"])
        let restored = try #require(BackoffDelayPool(keyedCounts: pool.keyedCounts))
        #expect(restored == pool)
        var doubled = pool
        doubled.merge(restored)
        #expect(doubled.total == 302)
        #expect(BackoffDelayPool(keyedCounts: ["warp-drive 3": Array(repeating: 0, count: 20)]) == nil)
        #expect(BackoffDelayPool(keyedCounts: ["table 3": [1, 2]]) == nil)
        // Atom tallies add up exactly (integer billionths), in any order.
        var atoms = BackoffDelayPool()
        for _ in 0..<3 { atoms.add(transform: 0.9, family: .decorrelatedJitter, failures: 4, atom: (0.3, true)) }
        let stored = try #require(atoms.keyedAtoms["decorrelated-jitter"])
        #expect(stored == [3, 3, 900_000_000, 630_000_000])
        #expect(BackoffDelayPool(keyedCounts: atoms.keyedCounts, keyedAtoms: atoms.keyedAtoms) == atoms)
    }

    @Test("the swarm draws every shipped backoff family, with parameters of its own")
    func swarmDrawsEveryFamily() {
        let generator = ScenarioGenerator(duration: .seconds(60))
        var families: Set<BackoffPolicy.Family> = []
        var policies: Set<BackoffPolicy> = []
        for seed in UInt64(0)..<400 {
            let policy = generator.scenario(seed: seed).configuration.backoff
            families.insert(policy.family)
            policies.insert(policy)
        }
        #expect(
            families == Set(BackoffPolicy.Family.allCases),
            "never drawn: \(Set(BackoffPolicy.Family.allCases).subtracting(families))")
        // Parameters are drawn too, not five fixed profiles.
        #expect(policies.count > 100, "\(policies.count) distinct policies")
    }
}
