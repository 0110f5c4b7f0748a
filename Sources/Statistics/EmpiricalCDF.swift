/// The empirical distribution function of a sample: Fₙ(x) = #{xᵢ ≤ x} / n.
///
/// ```swift
/// let ecdf = EmpiricalCDF(values)
/// ecdf(2.5)          // fraction of values ≤ 2.5
/// ecdf.steps         // (x, Fₙ(x)) at each distinct value, for plotting
/// ```
public struct EmpiricalCDF: Sendable, Equatable {
    /// The sample, sorted ascending.
    public let sorted: [Double]

    /// The ECDF of `values` (which must not be empty).
    public init(_ values: [Double]) {
        precondition(!values.isEmpty, "an empirical CDF needs values")
        sorted = values.sorted()
    }

    /// Fₙ(x): the fraction of values at or below `x`.
    public func callAsFunction(_ x: Double) -> Double {
        // Binary search for the number of values ≤ x.
        var low = 0, high = sorted.count
        while low < high {
            let mid = (low + high) / 2
            if sorted[mid] <= x { low = mid + 1 } else { high = mid }
        }
        return Double(low) / Double(sorted.count)
    }

    /// One point per distinct value, at most `limit` of them (evenly thinned), so a
    /// million-value ECDF still makes a small picture.
    public func steps(limit: Int = 2000) -> [(x: Double, y: Double)] {
        var points: [(x: Double, y: Double)] = []
        let n = Double(sorted.count)
        var index = 0
        while index < sorted.count {
            var end = index + 1
            while end < sorted.count && sorted[end] == sorted[index] { end += 1 }
            points.append((sorted[index], Double(end) / n))
            index = end
        }
        guard points.count > limit else { return points }
        let stride = Double(points.count) / Double(limit)
        return (0..<limit).map { points[min(points.count - 1, Int(Double($0) * stride))] } + [points[points.count - 1]]
    }
}
