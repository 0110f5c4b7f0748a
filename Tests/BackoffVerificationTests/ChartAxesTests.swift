import BackoffVerification
import LiveConnection
import Statistics
import Testing

@Suite("Chart axes cover the data and nothing impossible")
struct ChartAxesTests {
    static func points(_ chart: Chart) -> [Chart.Point] {
        chart.series.flatMap { series -> [Chart.Point] in
            switch series {
            case .line(let points, _), .steps(let points, _): points
            case .bars: []
            }
        }
    }

    @Test("the ECDF chart of full jitter, whose delays start at zero, never reaches below zero")
    func cumulativeStartsAtZero() {
        let policy = BackoffPolicy.fullJitter(base: .seconds(1), cap: .seconds(30))
        let delays = policy.observations(runs: 300, attempts: 3...3, seed: 5).map(\.delay)
        let chart = DelayCharts.cumulative(
            delays, stated: policy.distribution(afterFailures: 3, previous: nil), title: "attempt 3")
        let xs = Self.points(chart).map(\.x)
        #expect(xs.min() == 0)
        #expect((xs.max() ?? 0) >= 4, "the stated range U(0, 4 s) is covered")
    }

    @Test("the herd's reconnect chart runs until the slowest policy had every connection back")
    func reconnectAxisCoversTheSlowest() throws {
        let outcomes = HerdStudy.reconnect(connections: 200, seed: 1)
        let slowest = try #require(outcomes.map(\.outcome.allReconnected).max())
        let lastX = try #require(Self.points(HerdStudy.reconnectChart(outcomes)).map(\.x).max())
        #expect(lastX >= Double(slowest.components.seconds), "axis ends at \(lastX) s, slowest back at \(slowest)")
        let bin = try #require(outcomes.first).outcome.bin
        #expect(lastX <= Double((slowest + bin * 2).components.seconds), "and not far beyond it: \(lastX) s")
    }
}
