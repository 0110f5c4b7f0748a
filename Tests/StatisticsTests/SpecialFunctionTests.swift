import Testing

@testable import Statistics

@Suite("Special functions against scipy")
struct SpecialFunctionTests {
    @Test("log-gamma matches scipy.special.gammaln to 1e-12 relative")
    func logGamma() {
        for row in ReferenceFixture.rows("log_gamma") {
            let value = SpecialFunctions.logGamma(row.double("x"))
            #expect(
                close(value, row.double("value"), absolute: 1e-13, relative: 1e-12), "x = \(row.double("x")): \(value)")
        }
    }

    @Test("regularized incomplete gamma P and Q match scipy's gammainc and gammaincc")
    func incompleteGamma() {
        for row in ReferenceFixture.rows("gamma_p") {
            let a = row.double("a"), x = row.double("x")
            let p = SpecialFunctions.regularizedGammaP(a, x)
            let q = SpecialFunctions.regularizedGammaQ(a, x)
            #expect(close(p, row.double("p"), absolute: 1e-14, relative: 1e-10), "P(\(a), \(x)) = \(p)")
            #expect(close(q, row.double("q"), absolute: 1e-14, relative: 1e-10), "Q(\(a), \(x)) = \(q)")
        }
    }

    @Test("χ² survival matches scipy.stats.chi2.sf, tails included")
    func chiSquareSurvival() {
        for row in ReferenceFixture.rows("chi2_sf") {
            let value = SpecialFunctions.chiSquareSurvival(row.double("x"), degreesOfFreedom: row.int("df"))
            #expect(close(value, row.double("value"), absolute: 1e-15, relative: 1e-9), "\(row): \(value)")
        }
    }

    @Test("normal CDF and quantile match scipy.stats.norm")
    func normal() {
        for row in ReferenceFixture.rows("normal_cdf") {
            let value = SpecialFunctions.normalCDF(row.double("x"))
            #expect(
                close(value, row.double("value"), absolute: 1e-16, relative: 1e-12), "Φ(\(row.double("x"))) = \(value)")
        }
        for row in ReferenceFixture.rows("normal_quantile") {
            let value = SpecialFunctions.normalQuantile(row.double("p"))
            #expect(
                close(value, row.double("value"), absolute: 1e-9, relative: 1e-9), "Φ⁻¹(\(row.double("p"))) = \(value)")
        }
    }

    @Test("P(Poisson(λ) ≥ t) by the incomplete gamma matches scipy.stats.poisson.sf")
    func poissonTail() {
        for row in ReferenceFixture.rows("poisson_upper") {
            let value = SpecialFunctions.regularizedGammaP(row.double("t"), row.double("lam"))
            #expect(close(value, row.double("value"), absolute: 1e-15, relative: 1e-10), "\(row): \(value)")
        }
    }
}
