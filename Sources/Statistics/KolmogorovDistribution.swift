import Foundation

/// The null distribution of the one-sample Kolmogorov–Smirnov statistic Dₙ.
///
/// ```swift
/// KolmogorovDistribution.survival(0.274, sampleSize: 20)  // P(D₂₀ ≥ 0.274) ≈ 0.08
/// KolmogorovDistribution.asymptoticSurvival(1.358)        // ≈ 0.05
/// ```
///
/// Small samples (n ≤ ``exactLimit``) use the exact algorithm of Marsaglia, Tsang and Wang
/// (2003, "Evaluating Kolmogorov's distribution", J. Stat. Software 8(18)): P(Dₙ < d) is an
/// entry of the n-th power of a (2k−1)×(2k−1) matrix, k = ⌊nd⌋ + 1. Only when nd > 100,
/// far in the tail where p < 10⁻⁸, does it switch to their quick tail formula. Large samples use Kolmogorov's limit
/// P(√n·D > x) = 2 Σ (−1)^{k−1} e^{−2k²x²} at Stephens' corrected argument
/// x = (√n + 0.12 + 0.11/√n)·d, within 0.004 of the exact value for n > 1000 and within
/// 10⁻⁴ where p is near 0.05 or 0.01
/// (checked against scipy's `kstwo` in the fixtures).
public enum KolmogorovDistribution {
    /// Largest n for which the exact matrix algorithm is used.
    public static let exactLimit = 1000

    /// P(Dₙ ≥ d), the p-value of an observed statistic d.
    public static func survival(_ d: Double, sampleSize n: Int) -> Double {
        precondition(n > 0, "the Kolmogorov distribution needs n ≥ 1")
        if d <= 0 { return 1 }
        if d >= 1 { return 0 }
        if n > exactLimit {
            let root = Double(n).squareRoot()
            return asymptoticSurvival((root + 0.12 + 0.11 / root) * d)
        }
        if Double(n) * d > 100 {
            // Far in the tail (p < 10⁻⁸ for every n here) the matrix would be over 200 wide:
            // Marsaglia–Tsang–Wang's quick right-tail formula, good to 7 digits of the CDF.
            let s = d * d * Double(n)
            let exponent = (2.000071 + 0.331 / Double(n).squareRoot() + 1.409 / Double(n)) * s
            return min(1, 2 * exp(-exponent))
        }
        return max(0, 1 - exactCDF(d, sampleSize: n))
    }

    /// P(Dₙ < d) by the Marsaglia–Tsang–Wang matrix power (no tail shortcut).
    public static func exactCDF(_ d: Double, sampleSize n: Int) -> Double {
        precondition(n > 0, "the Kolmogorov distribution needs n ≥ 1")
        if d <= 0.5 / Double(n) { return 0 }
        if d >= 1 { return 1 }
        let nd = Double(n) * d
        let k = Int(nd) + 1
        let m = 2 * k - 1
        let h = Double(k) - nd
        var matrix = SquareMatrix(size: m)
        for i in 0..<m {
            for j in 0..<m where i - j + 1 >= 0 { matrix[i, j] = 1 }
        }
        for i in 0..<m {
            matrix[i, 0] -= pow(h, Double(i + 1))
            matrix[m - 1, i] -= pow(h, Double(m - i))
        }
        if 2 * h - 1 > 0 { matrix[m - 1, 0] += pow(2 * h - 1, Double(m)) }
        for i in 0..<m {
            for j in 0..<m where i - j + 1 > 0 {
                var factorial = 1.0
                for g in 1...(i - j + 1) { factorial *= Double(g) }
                matrix[i, j] /= factorial
            }
        }
        var (power, exponent) = matrix.power(n, watching: k - 1)
        // Multiply by n!/nⁿ one factor at a time, rescaling to stay inside double range.
        var value = power[k - 1, k - 1]
        for i in 1...n {
            value = value * Double(i) / Double(n)
            if value < 1e-140 {
                value *= 1e140
                exponent -= 140
            }
        }
        return min(1, value * pow(10, Double(exponent)))
    }

    /// Kolmogorov's limiting distribution: P(K > x) = 2 Σ_{k≥1} (−1)^{k−1} e^{−2k²x²}
    /// (scipy's `kstwobign.sf`).
    public static func asymptoticSurvival(_ x: Double) -> Double {
        if x <= 0 { return 1 }
        if x < 0.3 {
            // The alternating series converges slowly here; use the dual (Jacobi theta) form
            // P(K ≤ x) = √(2π)/x Σ e^{−(2k−1)²π²/(8x²)}, which is ≈ 0 for small x.
            var sum = 0.0
            for k in 1...20 {
                let odd = Double(2 * k - 1)
                sum += exp(-odd * odd * Double.pi * Double.pi / (8 * x * x))
            }
            return 1 - (2 * Double.pi).squareRoot() / x * sum
        }
        var sum = 0.0
        var sign = 1.0
        for k in 1...100 {
            let term = exp(-2 * Double(k * k) * x * x)
            sum += sign * term
            if term < 1e-18 { break }
            sign = -sign
        }
        return min(1, max(0, 2 * sum))
    }

    /// The asymptotic critical value c(α) with P(K > c) = α, by bisection on the limit law
    /// (c(0.05) = 1.358, c(0.01) = 1.628).
    public static func asymptoticCriticalValue(alpha: Double) -> Double {
        precondition(alpha > 0 && alpha < 1, "alpha must be in (0, 1), got \(alpha)")
        var low = 0.1, high = 5.0
        for _ in 0..<100 {
            let mid = (low + high) / 2
            if asymptoticSurvival(mid) > alpha { low = mid } else { high = mid }
        }
        return (low + high) / 2
    }
}

/// A dense square matrix with a decimal exponent kept aside, for the Kolmogorov matrix power.
struct SquareMatrix {
    let size: Int
    var values: [Double]

    init(size: Int) {
        self.size = size
        values = Array(repeating: 0, count: size * size)
    }

    subscript(row: Int, column: Int) -> Double {
        get { values[row * size + column] }
        set { values[row * size + column] = newValue }
    }

    static func * (left: SquareMatrix, right: SquareMatrix) -> SquareMatrix {
        let m = left.size
        var product = SquareMatrix(size: m)
        left.values.withUnsafeBufferPointer { a in
            right.values.withUnsafeBufferPointer { b in
                product.values.withUnsafeMutableBufferPointer { c in
                    for i in 0..<m {
                        for l in 0..<m {
                            let factor = a[i * m + l]
                            if factor == 0 { continue }
                            for j in 0..<m { c[i * m + j] += factor * b[l * m + j] }
                        }
                    }
                }
            }
        }
        return product
    }

    /// selfⁿ and a power of ten to multiply it by; rescales whenever the watched diagonal
    /// entry grows past 10¹⁴⁰ (the entries would otherwise overflow for large n).
    func power(_ n: Int, watching index: Int) -> (SquareMatrix, Int) {
        if n == 1 { return (self, 0) }
        var (half, exponent) = power(n / 2, watching: index)
        var result = half * half
        exponent *= 2
        if n % 2 == 1 { result = result * self }
        if result[index, index] > 1e140 {
            for position in result.values.indices { result.values[position] *= 1e-140 }
            exponent += 140
        }
        return (result, exponent)
    }
}
