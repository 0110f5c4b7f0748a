import LiveConnection
import TestScheduling
import Testing

@testable import Statistics

/// Fixed seeds make these deterministic; the bounds come from the binomial distribution
/// of the rejection count, so they would catch a test whose level or power is wrong
/// rather than merely unlucky: a correct test lands outside them with probability < 10⁻⁴.
@Suite("False-alarm rate and power over many seeds", .computeBound)
struct FalseAlarmAndPowerTests {
    static func uniformSample(_ n: Int, seed: UInt64) -> [Double] {
        var random = Xoshiro256StarStar(seed: seed)
        return (0..<n).map { _ in random.unitDouble() }
    }

    @Test("KS on 1000 true-uniform samples rejects about α of them", arguments: [0.01, 0.05])
    func kolmogorovSmirnovLevel(alpha: Double) {
        let trials = 1000
        let rejections = (0..<UInt64(trials)).filter { seed in
            let sample = Self.uniformSample(100, seed: 1_000 + seed)
            return KolmogorovSmirnovTest(sample: sample) { $0 }.pValue < alpha
        }.count
        let range = PowerAnalysis.binomialAcceptanceRange(trials: trials, probability: alpha, tail: 1e-4)
        #expect(
            range.contains(rejections), "\(rejections) rejections of \(trials) at α = \(alpha); expected in \(range)")
    }

    @Test("χ² on 1000 true-uniform samples rejects about α of them")
    func chiSquareLevel() {
        let alpha = 0.01, trials = 1000
        let rejections = (0..<UInt64(trials)).filter { seed in
            ChiSquareTest.uniform(unitValues: Self.uniformSample(200, seed: 50_000 + seed)).pValue < alpha
        }.count
        // χ² is approximate, so allow its level to sit anywhere the binomial allows around α.
        let range = PowerAnalysis.binomialAcceptanceRange(trials: trials, probability: alpha, tail: 1e-4)
        #expect(range.contains(rejections), "\(rejections) of \(trials); expected in \(range)")
    }

    @Test("the power analysis delivers: a 0.1 shift is rejected at least as often as promised")
    func kolmogorovSmirnovPower() {
        let alpha = 0.01, power = 0.9, effect = 0.1
        let n = PowerAnalysis.kolmogorovSmirnovSampleSize(effect: effect, alpha: alpha, power: power)
        #expect(n == 515, "n = ⌈((c_α + z_β/2)/ε)²⌉ = ⌈((1.6276 + 0.6408)/0.1)²⌉")
        let trials = 100
        let rejections = (0..<UInt64(trials)).filter { seed in
            let sample = Self.uniformSample(n, seed: 90_000 + seed).map { min(1, $0 + effect) }
            return KolmogorovSmirnovTest(sample: sample) { $0 }.pValue < alpha
        }.count
        let floor = PowerAnalysis.binomialAcceptanceRange(trials: trials, probability: power, tail: 1e-4).lowerBound
        #expect(rejections >= floor, "\(rejections) of \(trials) rejected; power \(power) promises at least \(floor)")
    }

    @Test("the same sample size without the shift is not rejected more than α allows")
    func kolmogorovSmirnovNoShift() {
        let alpha = 0.01, trials = 200
        let n = PowerAnalysis.kolmogorovSmirnovSampleSize(effect: 0.1, alpha: alpha, power: 0.9)
        let rejections = (0..<UInt64(trials)).filter { seed in
            KolmogorovSmirnovTest(sample: Self.uniformSample(n, seed: 90_000 + seed)) { $0 }.pValue < alpha
        }.count
        let range = PowerAnalysis.binomialAcceptanceRange(trials: trials, probability: alpha, tail: 1e-4)
        #expect(range.contains(rejections), "\(rejections) of \(trials); expected in \(range)")
    }

    @Test("a comb (every other tenth of the range empty) is caught by χ² at n = 500")
    func combIsRejected() {
        var random = Xoshiro256StarStar(seed: 4)
        let sample = (0..<500).map { _ -> Double in
            let u = random.unitDouble()
            let tooth = Double(Int(u * 10) / 2 * 2)  // keep only the even tenths
            return (tooth + u * 10 - Double(Int(u * 10))) / 10
        }
        let chi = ChiSquareTest.uniform(unitValues: sample, bins: 20)
        #expect(chi.pValue < 1e-10, "\(chi)")
        // The worst bin is an empty tooth or an overfull one.
        #expect(chi.worstBin.observed == 0 || Double(chi.worstBin.observed) > 1.5 * chi.worstBin.expected)
    }

    @Test("binomial acceptance bounds hold their tail probability on both sides")
    func binomialBounds() {
        let range = PowerAnalysis.binomialAcceptanceRange(trials: 1000, probability: 0.01, tail: 1e-4)
        #expect(range.lowerBound >= 0 && range.lowerBound <= 2)
        #expect(range.upperBound >= 20 && range.upperBound <= 26, "\(range)")
    }
}
