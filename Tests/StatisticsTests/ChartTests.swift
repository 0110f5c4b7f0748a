import Testing

@testable import Statistics

@Suite("Histograms, empirical CDFs and SVG charts")
struct ChartTests {
    @Test("a histogram keeps escaped mass apart and puts the upper edge in the last bin")
    func histogram() {
        let histogram = Histogram(values: [-1, 0, 0.5, 0.99, 1, 2], range: 0...1, bins: 2)
        #expect(histogram.counts == [1, 3])
        #expect(histogram.below == 1 && histogram.above == 1)
        #expect(histogram.total == 6)
        #expect(histogram.densities == [1.0 / 6 / 0.5, 3.0 / 6 / 0.5])
    }

    @Test("the empirical CDF counts values at or below x, and its steps end at 1")
    func empirical() {
        let ecdf = EmpiricalCDF([3, 1, 2, 2])
        #expect(ecdf(0) == 0 && ecdf(1) == 0.25 && ecdf(2) == 0.75 && ecdf(2.5) == 0.75 && ecdf(3) == 1)
        let steps = ecdf.steps()
        #expect(steps.map(\.x) == [1, 2, 3] && steps.map(\.y) == [0.25, 0.75, 1])
    }

    @Test("ticks are 1-2-5 multiples covering the range")
    func ticks() {
        #expect(Chart.ticks(0...4) == [0, 1, 2, 3, 4])
        #expect(Chart.ticks(0...0.9) == [0, 0.2, 0.4, 0.6, 0.8, 1.0])
        let ticks = Chart.ticks(3...97)
        #expect(ticks.first! <= 3 && ticks.last! >= 97)
    }

    @Test("a chart renders valid, escaped, deterministic SVG with every series")
    func svg() {
        var chart = Chart(title: "a < b & c", xLabel: "x", yLabel: "y")
        chart.add(.bars(Histogram(values: [0.1, 0.2, 0.7], range: 0...1, bins: 4), label: "bars"))
        chart.add(.line([.init(0, 1), .init(1, 1)], label: "line"))
        chart.add(.steps([.init(0.1, 0.3), .init(0.7, 1)], label: "steps"))
        let svg = chart.svg()
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(svg.hasSuffix("</svg>\n"))
        #expect(svg.contains("a &lt; b &amp; c") && !svg.contains("a < b"))
        #expect(svg.components(separatedBy: "<polyline").count == 3)
        #expect(svg.contains(">bars<") && svg.contains(">line<") && svg.contains(">steps<"))
        #expect(svg == chart.svg())
    }
}

@Suite("Chart labels")
struct ChartLabelTests {
    @Test(
        "whole numbers print in full, fractions with %g",
        arguments: [(200_000.0, "200000"), (0.5, "0.5"), (-3.0, "-3"), (0.25, "0.25")])
    func labels(value: Double, text: String) {
        #expect(Chart.label(value) == text)
    }

    @Test("a fixed upper bound caps the y axis at 1 for probabilities")
    func upperBound() {
        var chart = Chart(title: "t", xLabel: "x", yLabel: "y")
        chart.yUpperBound = 1
        chart.add(.steps([.init(0, 0.5), .init(1, 1)], label: "ecdf"))
        #expect(chart.bounds().1.upperBound == 1)
    }
}
