import LiveConnection
import LiveConnectionSimulator
import Statistics

/// Every observation sorted into what the tests need: transforms of the continuous
/// parts, the atom at the cap, constants, out-of-bounds values, and per-run sequences.
struct Classification {
    struct Continuous {
        var attempt: Int
        /// F(D), or F(D)/F(cap⁻) below a cap: U(0, 1) under the claim.
        var u: Double
        var shape: StatedShape
    }

    var continuous: [Continuous] = []
    var outside: [String] = []
    var mismatches: [String] = []
    var pointCount = 0
    /// The claimed atom of each observation that could sit at a cap, and how many did.
    var capMasses: [Double] = []
    var atCap = 0
    var hasAtom: Bool { !capMasses.isEmpty }
    /// Randomized transforms in file order, and grouped per run.
    var randomizedInRunOrder: [Double] = []
    var randomizedPerRun: [[Double]] = []
    /// (run, attempt, delay ns, shape) for the ties test.
    var raw: [(run: Int, attempt: Int, delay: Int64, shape: StatedShape, continuous: Bool)] = []

    init(_ observations: [DelayObservation], policy: BackoffPolicy, tolerance: Int64, seed: UInt64) {
        // The randomization stream is separate from any stream that drew the sample.
        var random = Xoshiro256StarStar(seed: seed ^ 0x5EED_0F_7A_AD_0B17)
        var runIndex: [Int: Int] = [:]
        for observation in observations {
            // The publication's distribution, never the policy's own: see Specification.publishedDelay.
            let shape = StatedShape(
                Specification.seedDocuments.publishedDelay(
                    policy, afterFailures: observation.attempt, previous: observation.previous))
            let delay = observation.delay.nanoseconds
            // Built only for the few observations that are reported.
            func label() -> String {
                "run \(observation.run), attempt \(observation.attempt): \(secondsText(observation.delay.seconds))"
            }
            var randomized: Double
            var inContinuousPart = false
            switch shape {
            case .point(let value):
                pointCount += 1
                if abs(delay - value) > tolerance {
                    mismatches.append("\(label()), claim \(secondsText(Double(value) / 1e9))")
                }
                randomized = random.unitDouble()
            case .uniform(let lower, let upper):
                if delay < lower - tolerance || delay > upper + tolerance {
                    outside.append(
                        "\(label()) outside [\(secondsText(Double(lower) / 1e9)), \(secondsText(Double(upper) / 1e9))]")
                }
                let u = min(1, max(0, Double(delay - lower) / Double(upper - lower)))
                continuous.append(Continuous(attempt: observation.attempt, u: u, shape: shape))
                randomized = u
                inContinuousPart = true
            case .clamped(let lower, _, let cap, let mass):
                if delay < lower - tolerance || delay > cap + tolerance {
                    outside.append(
                        "\(label()) outside [\(secondsText(Double(lower) / 1e9)), \(secondsText(Double(cap) / 1e9))]")
                }
                capMasses.append(mass)
                if delay >= cap - tolerance {
                    atCap += 1
                    randomized = (1 - mass) + random.unitDouble() * mass
                } else {
                    let u = min(1, max(0, Double(delay - lower) / Double(cap - lower)))
                    continuous.append(Continuous(attempt: observation.attempt, u: u, shape: shape))
                    randomized = u * (1 - mass)
                    inContinuousPart = true
                }
            }
            randomizedInRunOrder.append(randomized)
            if let index = runIndex[observation.run] {
                randomizedPerRun[index].append(randomized)
            } else {
                runIndex[observation.run] = randomizedPerRun.count
                randomizedPerRun.append([randomized])
            }
            raw.append((observation.run, observation.attempt, delay, shape, inContinuousPart))
        }
    }

    /// Words for the worst KS point: the quantile, and the delay it is for one attempt.
    func region(quantile u: Double, empirical: Double, theoretical: Double, attempt: Int? = nil) -> String {
        let share =
            "\(Int((empirical * 100).rounded())) % of delays at or below vs \(Int((theoretical * 100).rounded())) % claimed"
        return "U ≈ \(u.formatted(digits: 3)): \(share)\(example(quantile: u, attempt: attempt))"
    }

    /// ", e.g. attempt 3: 2.08 s" — the delay at conditional quantile u for a typical attempt.
    func example(quantile u: Double, attempt: Int? = nil) -> String {
        let candidates = attempt.map { wanted in continuous.filter { $0.attempt == wanted } } ?? continuous
        guard let first = candidates.first else { return "" }
        // The most common attempt stands for the pool.
        var counts: [Int: Int] = [:]
        for item in candidates { counts[item.attempt, default: 0] += 1 }
        let common = counts.sorted { ($0.value, -$0.key) > ($1.value, -$1.key) }.first?.key ?? first.attempt
        guard let shape = candidates.first(where: { $0.attempt == common })?.shape else { return "" }
        return " (attempt \(common): \(secondsText(shape.continuousQuantile(u))))"
    }

    /// Tied delays across runs at the same attempt, against the birthday expectation at
    /// the data's grain (the gcd of the delays: 1 ms for millisecond-rounded data), among
    /// delays in the continuous part of their distribution.
    func tiesAcrossRuns() -> (tied: Int, expected: Double, sampleSize: Int, pValue: Double, worst: String)? {
        guard Set(raw.filter(\.continuous).map(\.run)).count >= 2 else { return nil }
        var grain: Int64 = 0
        for item in raw { grain = Self.gcd(grain, item.delay) }
        grain = max(1, grain)
        var tied = 0
        var expected = 0.0
        var total = 0
        var worst: (attempt: Int, delay: Int64, count: Int)?
        var byAttempt: [Int: [(delay: Int64, shape: StatedShape)]] = [:]
        for item in raw where item.continuous { byAttempt[item.attempt, default: []].append((item.delay, item.shape)) }
        for attempt in byAttempt.keys.sorted() {
            let group = byAttempt[attempt] ?? []
            guard group.count >= 2 else { continue }
            let test = TiesTest(values: group.map(\.delay), collisionProbability: 0)
            tied += test.tiedPairs
            // Only the continuous parts: ties at an atom (the cap, a constant) are expected and
            // strongly dependent, which would break the Poisson approximation.
            let collisions = group.reduce(0.0) { sum, item in
                let mass = item.shape.atom?.mass ?? 0
                return sum + item.shape.continuousCollision(grain: grain) / max(1e-12, (1 - mass) * (1 - mass))
            }
            let n = Double(group.count)
            expected += n * (n - 1) / 2 * collisions / n
            total += group.count
            if let repeated = test.mostRepeated, repeated.count > (worst?.count ?? 1) {
                worst = (attempt, repeated.value, repeated.count)
            }
        }
        guard total >= 2 else { return nil }
        let p = tied == 0 ? 1 : (expected <= 0 ? 0 : SpecialFunctions.regularizedGammaP(Double(tied), expected))
        let text =
            worst.map {
                "\($0.count) runs share \(secondsText(Double($0.delay) / 1e9)) at attempt \($0.attempt); \(tied) tied pairs vs \(expected.formatted(digits: 2)) expected"
            }
            ?? "no ties (\(expected.formatted(digits: 2)) expected)"
        return (tied, expected, total, p, text)
    }

    static func gcd(_ a: Int64, _ b: Int64) -> Int64 {
        var (x, y) = (abs(a), abs(b))
        while y != 0 { (x, y) = (y, x % y) }
        return x
    }
}
