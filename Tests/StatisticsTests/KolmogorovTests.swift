import Testing

@testable import Statistics

@Suite("Kolmogorov–Smirnov against scipy")
struct KolmogorovTests {
    @Test("exact p-values match scipy.stats.kstwo: to 1e-12 where scipy is exact (n ≤ 140), 1e-6 above")
    func exactSurvival() {
        for row in ReferenceFixture.rows("kstwo_exact") {
            let n = row.int("n"), d = row.double("d")
            let sf = KolmogorovDistribution.survival(d, sampleSize: n)
            // Above n = 140 scipy switches to approximations good to about 1e-7.
            let tolerance = n <= 140 ? 1e-12 : 1e-6
            #expect(
                close(sf, row.double("sf"), absolute: tolerance, relative: 1e-9),
                "n = \(n), d = \(d): \(sf) vs \(row.double("sf"))")
        }
    }

    @Test("above n = 140, the matrix power matches a 40-digit evaluation to 1e-12")
    func highPrecision() {
        for row in ReferenceFixture.rows("kstwo_high_precision") {
            let n = row.int("n"), d = row.double("d")
            let cdf = KolmogorovDistribution.exactCDF(d, sampleSize: n)
            #expect(close(cdf, row.double("cdf"), absolute: 1e-12), "n = \(n), d = \(d): \(cdf)")
            let sf = KolmogorovDistribution.survival(d, sampleSize: n)
            #expect(close(sf, row.double("sf"), absolute: 1e-12), "n = \(n), d = \(d): \(sf)")
        }
    }

    @Test("large samples: the corrected asymptotic law is within 0.004 of kstwo, 2e-4 near the usual α")
    func largeSampleSurvival() {
        for row in ReferenceFixture.rows("kstwo_large") {
            let n = row.int("n"), d = row.double("d")
            let sf = KolmogorovDistribution.survival(d, sampleSize: n)
            let expected = row.double("sf")
            let tolerance = expected < 0.06 ? 2e-4 : 4e-3
            #expect(close(sf, expected, absolute: tolerance), "n = \(n), d = \(d): \(sf) vs \(expected)")
        }
    }

    @Test("Kolmogorov's limit law matches scipy.stats.kstwobign, on both sides of the series switch")
    func asymptotic() {
        for row in ReferenceFixture.rows("kstwobign_sf") {
            let value = KolmogorovDistribution.asymptoticSurvival(row.double("x"))
            #expect(close(value, row.double("value"), absolute: 1e-12), "x = \(row.double("x")): \(value)")
        }
        #expect(close(KolmogorovDistribution.asymptoticCriticalValue(alpha: 0.05), 1.3581, absolute: 1e-4))
        #expect(close(KolmogorovDistribution.asymptoticCriticalValue(alpha: 0.01), 1.6276, absolute: 1e-4))
    }

    @Test("whole KS tests reproduce scipy.stats.kstest statistic and p-value")
    func wholeTests() {
        for row in ReferenceFixture.rows("ks_samples") {
            let sample = row.doubles("sample")
            let result = KolmogorovSmirnovTest(sample: sample) { min(1, max(0, $0)) }
            #expect(close(result.statistic, row.double("statistic"), absolute: 1e-14), "n = \(sample.count)")
            #expect(
                close(result.pValue, row.double("pvalue"), absolute: 1e-7, relative: 1e-6),
                "n = \(sample.count): \(result.pValue)")
            // The reported worst point really carries the gap.
            #expect(close(abs(result.empiricalAtWorst - result.theoreticalAtWorst), result.statistic, absolute: 1e-12))
        }
    }
}
