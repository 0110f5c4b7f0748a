import BackoffVerification
import LiveConnection
import LiveConnectionSimulator
import Testing

@Suite("The manager's own backoff delays, recorded in simulation")
struct ManagerDelaysTests {
    static func configuration(_ policy: BackoffPolicy) -> ConnectionConfiguration {
        var configuration = ConnectionConfiguration()
        configuration.backoff = policy
        return configuration
    }

    @Test(
        "200 managers × 8 refused attempts follow the configured policy's claim",
        arguments: [
            BackoffPolicy.fullJitter(base: .seconds(1), cap: .seconds(30)),
            .equalJitter(base: .milliseconds(500), cap: .seconds(10)),
            .decorrelatedJitter(base: .seconds(1), cap: .seconds(30)),
            .proportionalJitter(),
        ])
    func followsTheClaim(policy: BackoffPolicy) throws {
        let observations = try ManagerDelays.record(
            configuration: Self.configuration(policy), runs: 200, attempts: 8, seed: 1)
        #expect(observations.count == 1600)
        #expect(observations.filter { $0.run == 7 }.map(\.attempt) == Array(1...8))
        let report = try BackoffFit.fit(observations, to: policy)
        #expect(report.accepted, "\(report.table())")
    }

    @Test("a delay is the virtual time the manager waited: exponential backoff waits exactly its ceilings")
    func measuresTheWait() throws {
        let policy = BackoffPolicy.exponential(base: .milliseconds(100), cap: .seconds(1))
        let observations = try ManagerDelays.record(
            configuration: Self.configuration(policy), runs: 3, attempts: 6, seed: 9)
        let expected: [Duration] = [
            .milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .seconds(1), .seconds(1),
        ]
        for run in 0..<3 {
            #expect(observations.filter { $0.run == run }.map(\.delay) == expected)
        }
        #expect(observations[1].previous == .milliseconds(100))
    }

    @Test("a manager that says it backs off but retries at once is rejected by the fit")
    func retriesImmediatelyIsCaught() throws {
        let variant = try #require(LogicVariant.named("retries-immediately"))
        let policy = BackoffPolicy.fullJitter(base: .seconds(1), cap: .seconds(30))
        let observations = try ManagerDelays.record(
            configuration: Self.configuration(policy), runs: 50, attempts: 5, seed: 3,
            logic: { variant.logic(for: $0) })
        #expect(observations.allSatisfy { $0.delay == .zero })
        let report = try BackoffFit.fit(observations, to: policy)
        #expect(!report.accepted, "\(report.table())")
    }

    @Test("a manager that stops retrying is reported with the run and how far it got")
    func givingUpIsReported() throws {
        let variant = try #require(LogicVariant.named("gives-up"))
        #expect(throws: ManagerDelaysError.runEnded(run: 0, recorded: 0, wanted: 4, why: "the manager stalled")) {
            try ManagerDelays.record(runs: 2, attempts: 4, seed: 5, logic: { variant.logic(for: $0) })
        }
    }

    @Test("counts are range-checked")
    func countsAreChecked() {
        #expect(throws: ManagerDelaysError.outOfRange(name: "runs", value: 0, limit: ManagerDelays.maximumRuns)) {
            try ManagerDelays.record(runs: 0, attempts: 4, seed: 5)
        }
        #expect(throws: ManagerDelaysError.outOfRange(name: "attempts", value: 1001, limit: 1000)) {
            try ManagerDelays.record(runs: 1, attempts: 1001, seed: 5)
        }
    }

    @Test("the same seed records the same sample; another seed another")
    func deterministic() throws {
        let first = try ManagerDelays.record(runs: 20, attempts: 5, seed: 42)
        #expect(first == (try ManagerDelays.record(runs: 20, attempts: 5, seed: 42)))
        #expect(first != (try ManagerDelays.record(runs: 20, attempts: 5, seed: 43)))
    }
}
