public import LiveConnection
public import Statistics

/// Pictures of delays against their claim: histogram over the stated density, empirical
/// CDF over the stated CDF, and the same for pooled probability-integral transforms.
///
/// ```swift
/// let delays = (0..<2000).map { _ in policy.delay(afterFailures: 3, previous: nil, using: &random) }
/// let stated = policy.distribution(afterFailures: 3, previous: nil)
/// let picture = DelayCharts.histogram(delays, stated: stated, title: "full jitter, attempt 3")
/// ```
public enum DelayCharts {
    /// Histogram of the delays (seconds) with the stated density drawn over it.
    public static func histogram(_ delays: [Duration], stated: DelayDistribution, title: String, bins: Int = 40)
        -> Chart
    {
        let seconds = delays.map(\.seconds)
        let bounds = stated.bounds
        var low = bounds.lowerBound.seconds, high = bounds.upperBound.seconds
        if high <= low { (low, high) = (low - 0.5, high + 0.5) }
        var chart = Chart(title: title, xLabel: "delay (s)", yLabel: "density (1/s)")
        chart.add(
            .bars(Histogram(values: seconds, range: low...high, bins: bins), label: "observed (\(delays.count) delays)")
        )
        switch stated {
        case .constant(let value):
            chart.add(
                .line(
                    [.init(value.seconds, 0), .init(value.seconds, Double(bins) / (high - low))],
                    label: "stated: always \(value)"))
        case .uniform(let range):
            let density = 1 / max(1e-12, range.upperBound.seconds - range.lowerBound.seconds)
            chart.add(.line([.init(low, density), .init(high, density)], label: "stated density"))
        case .clampedUniform(let range, _):
            let density = 1 / max(1e-12, range.upperBound.seconds - range.lowerBound.seconds)
            chart.add(.line([.init(low, density), .init(high, density)], label: "stated density below the cap"))
            // The atom at the cap, spread over the last bin as a histogram would show it.
            let width = (high - low) / Double(bins)
            let atom = stated.massAtCap / width
            chart.add(
                .line(
                    [.init(high - width, density + atom), .init(high, density + atom)],
                    label: "stated atom at cap: \(stated.massAtCap.formatted(digits: 3))"))
        }
        return chart
    }

    /// The empirical CDF of the delays over the stated CDF.
    public static func cumulative(_ delays: [Duration], stated: DelayDistribution, title: String) -> Chart {
        let ecdf = EmpiricalCDF(delays.map(\.seconds))
        var chart = Chart(title: title, xLabel: "delay (s)", yLabel: "P(delay ≤ x)")
        chart.yUpperBound = 1
        let bounds = stated.bounds
        let low = min(bounds.lowerBound.seconds, ecdf.sorted.first ?? 0)
        let high = max(bounds.upperBound.seconds, ecdf.sorted.last ?? 1)
        let span = max(high - low, 1e-9)
        // A little room on either side, but never below zero: no delay is negative.
        let start = max(0, low - 0.02 * span)
        let end = high + 0.02 * span
        let points = (0...400).map { index -> Chart.Point in
            let x = start + Double(index) / 400 * (end - start)
            return .init(x, stated.cdf(.nanoseconds(Int64(x * 1e9))))
        }
        chart.add(.line(points, label: "stated CDF"))
        chart.add(.steps(ecdf.steps(limit: 600).map { .init($0.x, $0.y) }, label: "empirical CDF"))
        return chart
    }

    /// Histogram of pooled transforms U = F(D) against the flat density of U(0, 1).
    public static func transformHistogram(_ transforms: [Double], title: String, bins: Int = 40) -> Chart {
        var chart = Chart(title: title, xLabel: "U = F(delay)", yLabel: "density")
        chart.add(
            .bars(Histogram(values: transforms, range: 0...1, bins: bins), label: "observed (\(transforms.count))"))
        chart.add(.line([.init(0, 1), .init(1, 1)], label: "U(0, 1) under the claim"))
        return chart
    }

    /// Empirical CDF of pooled transforms against the diagonal.
    public static func transformCumulative(_ transforms: [Double], title: String) -> Chart {
        var chart = Chart(title: title, xLabel: "U = F(delay)", yLabel: "P(U ≤ u)")
        chart.yUpperBound = 1
        chart.add(.line([.init(0, 0), .init(1, 1)], label: "U(0, 1) under the claim"))
        chart.add(.steps(EmpiricalCDF(transforms).steps(limit: 600).map { .init($0.x, $0.y) }, label: "empirical"))
        return chart
    }
}

extension BackoffFit {
    /// The transforms U the pooled KS and χ² rows test: F(D) for continuous claims,
    /// F(D)/F(cap⁻) below a cap (values at the cap and constants are left out).
    public static func pooledTransforms(
        _ observations: [DelayObservation], claim policy: BackoffPolicy, tolerance: Duration = .microseconds(500)
    ) -> [Double] {
        Classification(observations, policy: policy, tolerance: tolerance.nanoseconds, seed: 0).continuous.map(\.u)
    }
}
