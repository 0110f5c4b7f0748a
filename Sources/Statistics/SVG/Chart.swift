import Foundation

/// A small chart rendered to SVG text: histogram bars, lines and step functions on shared axes.
///
/// ```swift
/// var chart = Chart(title: "full jitter, attempt 3", xLabel: "delay (s)", yLabel: "density")
/// chart.add(.bars(histogram, label: "observed"))
/// chart.add(.line([(0, 0.25), (4, 0.25)], label: "U(0, 4 s)"))
/// try chart.svg().write(toFile: "attempt3.svg", atomically: true, encoding: .utf8)
/// ```
///
/// Our own writer (the package takes no dependencies): fixed size, linear axes with
/// 1-2-5 ticks, a legend, and deterministic text (numbers printed with `%g`), so a
/// regenerated picture diffs cleanly in the repository.
public struct Chart: Sendable {
    /// One thing drawn on the axes.
    public enum Series: Sendable {
        /// Filled bars from a histogram (its densities, or raw counts if `density` is false).
        case bars(Histogram, label: String, density: Bool = true)
        /// A polyline through the points.
        case line([Point], label: String)
        /// A right-continuous step function through the points (an ECDF).
        case steps([Point], label: String)
    }

    /// An (x, y) pair.
    public struct Point: Sendable, Equatable {
        /// The horizontal coordinate, in data units.
        public var x: Double
        /// The vertical coordinate, in data units.
        public var y: Double
        /// A point at (x, y).
        public init(_ x: Double, _ y: Double) { (self.x, self.y) = (x, y) }
    }

    /// The heading above the plot.
    public var title: String
    /// The label under the x axis.
    public var xLabel: String
    /// The label beside the y axis.
    public var yLabel: String
    /// The picture size in SVG user units.
    public var width = 720.0
    /// The picture height in SVG user units.
    public var height = 420.0
    /// Forces the y axis to start at zero (densities, counts, probabilities).
    public var yFromZero = true
    /// Fixes the top of the y axis (1 for probabilities) instead of fitting the data.
    public var yUpperBound: Double?
    /// What is drawn, in order (later series on top).
    public private(set) var series: [Series] = []

    /// Colours cycled through the series (colour-blind-safe Okabe–Ito palette).
    static let palette = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000"]

    /// An empty chart with these labels.
    public init(title: String, xLabel: String, yLabel: String) {
        self.title = title
        self.xLabel = xLabel
        self.yLabel = yLabel
    }

    /// Adds a series; its colour and legend entry follow its position.
    public mutating func add(_ item: Series) { series.append(item) }

    /// The complete SVG document.
    public func svg() -> String {
        let margin = (left: 70.0, right: 20.0, top: 40.0, bottom: 55.0)
        let plotWidth = width - margin.left - margin.right
        let plotHeight = height - margin.top - margin.bottom
        let (xRange, yRange) = bounds()
        let xTicks = Self.ticks(xRange)
        let yTicks = Self.ticks(yRange)
        let x0 = xTicks.first ?? xRange.lowerBound, x1 = xTicks.last ?? xRange.upperBound
        let y0 = yTicks.first ?? yRange.lowerBound, y1 = yTicks.last ?? yRange.upperBound
        func px(_ x: Double) -> Double { margin.left + (x - x0) / (x1 - x0) * plotWidth }
        func py(_ y: Double) -> Double { margin.top + plotHeight - (y - y0) / (y1 - y0) * plotHeight }

        var out = SVGWriter(width: width, height: height)
        // Long titles shrink rather than run off the picture (≈ 0.6 em per character).
        let titleSize = min(15, (width - 20) / (0.6 * Double(max(1, title.count))))
        out.text(title, x: width / 2, y: 22, anchor: "middle", size: titleSize, weight: "bold")
        out.text(xLabel, x: margin.left + plotWidth / 2, y: height - 12, anchor: "middle", size: 12)
        out.text(yLabel, x: 16, y: margin.top + plotHeight / 2, anchor: "middle", size: 12, rotate: -90)
        for tick in xTicks {
            out.line(px(tick), margin.top, px(tick), margin.top + plotHeight, stroke: "#e5e5e5")
            out.text(Self.label(tick), x: px(tick), y: margin.top + plotHeight + 16, anchor: "middle", size: 11)
        }
        for tick in yTicks {
            out.line(margin.left, py(tick), margin.left + plotWidth, py(tick), stroke: "#e5e5e5")
            out.text(Self.label(tick), x: margin.left - 6, y: py(tick) + 4, anchor: "end", size: 11)
        }
        out.rect(x: margin.left, y: margin.top, width: plotWidth, height: plotHeight, fill: "none", stroke: "#333333")

        for (index, item) in series.enumerated() {
            let colour = Self.palette[index % Self.palette.count]
            switch item {
            case .bars(let histogram, _, let density):
                let heights = density ? histogram.densities : histogram.counts.map(Double.init)
                for (bin, value) in heights.enumerated() where value > 0 {
                    let (low, high) = histogram.edges(of: bin)
                    out.rect(
                        x: px(low), y: py(value), width: px(high) - px(low), height: py(y0) - py(value),
                        fill: colour, stroke: "none", opacity: 0.45)
                }
            case .line(let points, _):
                out.polyline(points.map { (px($0.x), py($0.y)) }, stroke: colour)
            case .steps(let points, _):
                var path: [(Double, Double)] = []
                var lastY = y0
                for point in points {
                    path.append((px(point.x), py(lastY)))
                    path.append((px(point.x), py(point.y)))
                    lastY = point.y
                }
                if let last = points.last { path.append((px(x1), py(last.y))) }
                out.polyline(path, stroke: colour)
            }
        }
        // Legend, top right inside the plot.
        for (index, item) in series.enumerated() {
            let colour = Self.palette[index % Self.palette.count]
            let y = margin.top + 14 + Double(index) * 16
            let x = margin.left + plotWidth - 220
            out.rect(x: x, y: y - 9, width: 14, height: 10, fill: colour, stroke: "none", opacity: 0.8)
            out.text(item.label, x: x + 20, y: y, anchor: "start", size: 11)
        }
        return out.finish()
    }

    /// The data range over every series (y from zero when asked).
    func bounds() -> (ClosedRange<Double>, ClosedRange<Double>) {
        var xs: [Double] = [], ys: [Double] = []
        for item in series {
            switch item {
            case .bars(let histogram, _, let density):
                xs += [histogram.lower, histogram.upper]
                ys += density ? histogram.densities : histogram.counts.map(Double.init)
            case .line(let points, _), .steps(let points, _):
                xs += points.map(\.x)
                ys += points.map(\.y)
            }
        }
        let finiteX = xs.filter(\.isFinite), finiteY = ys.filter(\.isFinite)
        var xLow = finiteX.min() ?? 0, xHigh = finiteX.max() ?? 1
        var yLow = yFromZero ? min(0, finiteY.min() ?? 0) : (finiteY.min() ?? 0), yHigh = finiteY.max() ?? 1
        if xHigh <= xLow { xHigh = xLow + 1 }
        if yHigh <= yLow { yHigh = yLow + 1 }
        if !yFromZero { yLow -= (yHigh - yLow) * 0.02 }
        xLow = min(xLow, xHigh)
        if let yUpperBound, yUpperBound > yLow { return (xLow...xHigh, yLow...yUpperBound) }
        return (xLow...xHigh, yLow...(yHigh * 1.04))
    }

    /// Tick text: whole numbers in full (200000, not 2e+05), others with `%g`.
    static func label(_ value: Double) -> String {
        if value == value.rounded() && abs(value) < 1e12 { return String(Int64(value)) }
        return value.compact()
    }

    /// 1-2-5 ticks covering the range (first tick ≤ lower, last tick ≥ upper).
    static func ticks(_ range: ClosedRange<Double>, target: Int = 6) -> [Double] {
        let span = range.upperBound - range.lowerBound
        let raw = span / Double(target)
        let power = Int(floor(log10(raw)))
        let magnitude = pow(10, Double(power))
        let multiple = [1, 2, 5, 10].first { Double($0) * magnitude >= raw } ?? 10
        let step = Double(multiple) * magnitude
        // Ticks as integers × 10^power, so 0.6 prints as 0.6 and not 0.6000000000000001.
        func tick(_ index: Int) -> Double {
            power < 0 ? Double(index * multiple) / pow(10, Double(-power)) : Double(index * multiple) * magnitude
        }
        var index = Int(floor(range.lowerBound / step))
        var ticks: [Double] = []
        while ticks.last.map({ $0 < range.upperBound }) ?? true {
            ticks.append(tick(index))
            index += 1
        }
        return ticks
    }
}

extension Chart.Series {
    var label: String {
        switch self {
        case .bars(_, let label, _), .line(_, let label), .steps(_, let label): label
        }
    }
}
