/// Counts of values in equal-width bins over a range.
///
/// ```swift
/// let histogram = Histogram(values: delaysInSeconds, range: 0...4, bins: 40)
/// histogram.densities   // count / (n · width): comparable with a probability density
/// ```
///
/// Values outside the range are counted in ``below`` / ``above`` instead of being folded
/// into the end bins, so a picture never hides mass that escaped the stated bounds. The
/// upper edge belongs to the last bin (a delay exactly at the cap is inside).
public struct Histogram: Sendable, Equatable {
    /// The lower edge of the first bin.
    public let lower: Double
    /// The upper edge of the last bin (inclusive).
    public let upper: Double
    /// Values per bin.
    public private(set) var counts: [Int]
    /// Values below `lower`.
    public private(set) var below = 0
    /// Values above `upper`.
    public private(set) var above = 0

    /// Counts `values` into `bins` equal bins over `range`.
    public init(values: [Double], range: ClosedRange<Double>, bins: Int) {
        precondition(bins > 0 && range.upperBound > range.lowerBound, "histogram needs bins > 0 and a non-empty range")
        lower = range.lowerBound
        upper = range.upperBound
        counts = Array(repeating: 0, count: bins)
        for value in values { add(value) }
    }

    /// Counts one more value.
    public mutating func add(_ value: Double) {
        if value < lower { below += 1; return }
        if value > upper { above += 1; return }
        let index = min(counts.count - 1, Int((value - lower) / binWidth))
        counts[index] += 1
    }

    /// The width of every bin.
    public var binWidth: Double { (upper - lower) / Double(counts.count) }
    /// Every value counted, in range or not.
    public var total: Int { counts.reduce(0, +) + below + above }

    /// The edges of bin `index`.
    public func edges(of index: Int) -> (Double, Double) {
        (lower + Double(index) * binWidth, lower + Double(index + 1) * binWidth)
    }

    /// count / (n · width) per bin.
    public var densities: [Double] {
        let n = Double(max(1, total))
        return counts.map { Double($0) / (n * binWidth) }
    }
}
