import Foundation

/// The special functions the tests need: log-gamma, the regularized incomplete gamma
/// functions (χ² and Poisson tails) and the standard normal distribution.
///
/// ```swift
/// SpecialFunctions.logGamma(5)                       // log(24)
/// SpecialFunctions.regularizedGammaQ(2.5, 3.0)       // chi2.sf(6, df: 5)
/// SpecialFunctions.normalCDF(1.96)                   // 0.975
/// SpecialFunctions.normalQuantile(0.99)              // 2.326…
/// ```
///
/// Written here (checked against scipy in `Tests/StatisticsTests/Fixtures`) so that the
/// statistics kit needs nothing beyond the C math library.
public enum SpecialFunctions {
    /// Lanczos coefficients for g = 7, n = 9 (the widely published set; ~15 digits).
    private static let lanczos: [Double] = [
        0.999_999_999_999_809_93, 676.520_368_121_885_1, -1259.139_216_722_402_8,
        771.323_428_777_653_13, -176.615_029_162_140_59, 12.507_343_278_686_905,
        -0.138_571_095_265_720_12, 9.984_369_578_019_571_6e-6, 1.505_632_735_149_311_6e-7,
    ]

    /// log Γ(x) for x > 0 (Lanczos approximation; reflection below 1/2).
    public static func logGamma(_ x: Double) -> Double {
        precondition(x > 0, "logGamma needs a positive argument, got \(x)")
        if x < 0.5 {
            // Γ(x)Γ(1−x) = π / sin(πx) keeps accuracy near zero.
            return log(Double.pi / sin(Double.pi * x)) - logGamma(1 - x)
        }
        let z = x - 1
        var sum = lanczos[0]
        for index in 1..<lanczos.count {
            sum += lanczos[index] / (z + Double(index))
        }
        let t = z + 7.5
        return 0.5 * log(2 * Double.pi) + (z + 0.5) * log(t) - t + log(sum)
    }

    /// log(n!) by log-gamma.
    public static func logFactorial(_ n: Int) -> Double {
        precondition(n >= 0, "logFactorial needs n ≥ 0, got \(n)")
        return n < 2 ? 0 : logGamma(Double(n) + 1)
    }

    /// The regularized lower incomplete gamma function P(a, x) = γ(a, x) / Γ(a).
    ///
    /// P(k, λ) is also P(Poisson(λ) ≥ k), which the ties test uses.
    public static func regularizedGammaP(_ a: Double, _ x: Double) -> Double {
        precondition(a > 0 && x >= 0, "regularizedGammaP needs a > 0 and x ≥ 0, got a = \(a), x = \(x)")
        if x == 0 { return 0 }
        if x < a + 1 { return gammaSeries(a, x) }
        return 1 - gammaContinuedFraction(a, x)
    }

    /// The regularized upper incomplete gamma function Q(a, x) = 1 − P(a, x), computed
    /// directly so that small tails (tiny p-values) keep their relative precision.
    public static func regularizedGammaQ(_ a: Double, _ x: Double) -> Double {
        precondition(a > 0 && x >= 0, "regularizedGammaQ needs a > 0 and x ≥ 0, got a = \(a), x = \(x)")
        if x == 0 { return 1 }
        if x < a + 1 { return 1 - gammaSeries(a, x) }
        return gammaContinuedFraction(a, x)
    }

    /// The series γ(a, x) = e^{−x} x^a Σ x^n / (a (a+1) … (a+n)), good for x < a + 1.
    private static func gammaSeries(_ a: Double, _ x: Double) -> Double {
        var denominator = a
        var term = 1 / a
        var sum = term
        for _ in 0..<10_000 {
            denominator += 1
            term *= x / denominator
            sum += term
            if abs(term) < abs(sum) * 1e-17 { break }
        }
        return sum * exp(-x + a * log(x) - logGamma(a))
    }

    /// Q(a, x) by its continued fraction (modified Lentz), good for x ≥ a + 1.
    private static func gammaContinuedFraction(_ a: Double, _ x: Double) -> Double {
        let tiny = 1e-300
        var b = x + 1 - a
        var c = 1 / tiny
        var d = 1 / b
        var fraction = d
        for index in 1..<10_000 {
            let an = -Double(index) * (Double(index) - a)
            b += 2
            d = an * d + b
            if abs(d) < tiny { d = tiny }
            c = b + an / c
            if abs(c) < tiny { c = tiny }
            d = 1 / d
            let delta = d * c
            fraction *= delta
            if abs(delta - 1) < 1e-16 { break }
        }
        return exp(-x + a * log(x) - logGamma(a)) * fraction
    }

    /// The χ² survival function P(X ≥ statistic) with the given degrees of freedom.
    public static func chiSquareSurvival(_ statistic: Double, degreesOfFreedom: Int) -> Double {
        precondition(degreesOfFreedom > 0, "χ² needs at least one degree of freedom")
        return regularizedGammaQ(Double(degreesOfFreedom) / 2, max(0, statistic) / 2)
    }

    /// Φ(x), the standard normal CDF, by the C library's complementary error function
    /// (which keeps the lower tail accurate).
    public static func normalCDF(_ x: Double) -> Double {
        0.5 * erfc(-x / 2.0.squareRoot())
    }

    /// 1 − Φ(x), accurate in the upper tail.
    public static func normalSurvival(_ x: Double) -> Double {
        0.5 * erfc(x / 2.0.squareRoot())
    }

    /// The two-sided normal p-value P(|Z| ≥ |z|).
    public static func normalTwoSided(_ z: Double) -> Double {
        min(1, 2 * normalSurvival(abs(z)))
    }

    /// Φ⁻¹(p): Acklam's rational approximation, polished by one Halley step on Φ.
    public static func normalQuantile(_ p: Double) -> Double {
        precondition(p > 0 && p < 1, "normalQuantile needs 0 < p < 1, got \(p)")
        let a = [
            -3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
            1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00,
        ]
        let b = [
            -5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
            6.680131188771972e+01, -1.328068155288572e+01,
        ]
        let c = [
            -7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
            -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00,
        ]
        let d = [
            7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
            3.754408661907416e+00,
        ]
        let low = 0.02425
        var x: Double
        if p < low {
            let q = (-2 * log(p)).squareRoot()
            x =
                (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5])
                / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
        } else if p <= 1 - low {
            let q = p - 0.5
            let r = q * q
            x =
                (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q
                / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)
        } else {
            let q = (-2 * log(1 - p)).squareRoot()
            x =
                -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5])
                / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
        }
        // One Halley step brings the ~1e-9 approximation to full double precision.
        let error = normalCDF(x) - p
        let u = error * (2 * Double.pi).squareRoot() * exp(x * x / 2)
        x -= u / (1 + x * u / 2)
        return x
    }
}
