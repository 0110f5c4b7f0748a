import BackoffVerification
import LiveConnection
import Statistics
import Testing

@Suite("Dead-peer detection delay")
struct HeartbeatDetectionTests {
    @Test(
        "for a peer that dies at a random moment, D ≤ P + T always and D ~ U(T − L/2, P + T − L/2)",
        arguments: [
            (Duration.milliseconds(500), Duration.milliseconds(500)),
            (.seconds(25), .seconds(10)),  // the production defaults
            (.seconds(1), .seconds(3)),  // T > P: several pings outstanding before the deadline
        ])
    func detectionDelay(interval: Duration, timeout: Duration) {
        var configuration = ConnectionConfiguration()
        configuration.heartbeatInterval = interval
        configuration.heartbeatTimeout = timeout
        let experiment = DetectionDelayExperiment(configuration: configuration, roundTrip: .milliseconds(20))
        let delays = experiment.delays(count: 1000, seed: 77)
        let bound = interval + timeout
        #expect(delays.allSatisfy { $0 <= bound }, "max \(delays.max()!) exceeds P + T = \(bound)")
        #expect(delays.allSatisfy { $0 >= timeout - .milliseconds(10) }, "min \(delays.min()!)")

        // E[D] = P/2 + T − L/2, within 4 standard errors (the uniform's sd is P/√12).
        let seconds = delays.map(\.seconds)
        let mean = seconds.reduce(0, +) / Double(seconds.count)
        let expected = interval.seconds / 2 + timeout.seconds - 0.010
        let standardError = interval.seconds / (12.0 * Double(seconds.count)).squareRoot()
        #expect(abs(mean - expected) < 4 * standardError, "mean \(mean) s vs P/2 + T − L/2 = \(expected) s")

        // The whole distribution, not just its mean.
        let stated = experiment.statedDistribution
        let ks = KolmogorovSmirnovTest(sample: seconds) { stated.cdf(.nanoseconds(Int64(($0 * 1e9).rounded()))) }
        #expect(ks.pValue > 0.001, "\(ks)")
    }

    @Test("the experiment is deterministic per seed")
    func deterministic() {
        var configuration = ConnectionConfiguration()
        configuration.heartbeatInterval = .seconds(2)
        configuration.heartbeatTimeout = .seconds(1)
        let experiment = DetectionDelayExperiment(configuration: configuration)
        #expect(experiment.delays(count: 50, seed: 3) == experiment.delays(count: 50, seed: 3))
        #expect(experiment.delays(count: 50, seed: 3) != experiment.delays(count: 50, seed: 4))
    }
}
