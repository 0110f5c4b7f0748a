import BackoffVerification
import LiveConnection
import Testing

@Suite("The herd experiments")
struct HerdTests {
    static let base = Duration.milliseconds(5), cap = Duration.seconds(2)

    @Test("the event queue pops in time order, ties in insertion order")
    func eventQueue() {
        var queue = EventQueue<String>()
        for (name, time) in [("c", 30), ("a", 10), ("b1", 20), ("b2", 20), ("b3", 20), ("z", 5)] as [(String, Int64)] {
            queue.schedule(name, at: time)
        }
        var order: [String] = []
        while let (_, name) = queue.next() { order.append(name) }
        #expect(order == ["z", "a", "b1", "b2", "b3", "c"])
    }

    @Test("at N = 100, no jitter makes more calls and takes longer than full jitter", arguments: [1, 2, 3] as [UInt64])
    func noJitterLoses(seed: UInt64) {
        let none = ContentionExperiment(clients: 100, policy: .exponential(base: Self.base, cap: Self.cap), seed: seed)
            .run()
        let full = ContentionExperiment(clients: 100, policy: .fullJitter(base: Self.base, cap: Self.cap), seed: seed)
            .run()
        #expect(none.calls > 2 * full.calls, "no jitter \(none.calls) calls vs full jitter \(full.calls)")
        #expect(none.completion > full.completion * 5, "no jitter \(none.completion) vs full jitter \(full.completion)")
    }

    @Test("every client eventually writes: calls ≥ clients, and exactly one call each without contention")
    func everyoneFinishes() {
        let single = ContentionExperiment(clients: 1, policy: .fullJitter(base: Self.base, cap: Self.cap), seed: 4)
            .run()
        #expect(single.calls == 1 && single.maximumAttempts == 1)
        for named in HerdStudy.contentionPolicies {
            let outcome = ContentionExperiment(clients: 40, policy: named.policy, seed: 9).run()
            #expect(outcome.calls >= 40, "\(named.name): \(outcome)")
        }
    }

    @Test("the same seed gives the same run, a different seed a different one")
    func deterministic() {
        let policy = BackoffPolicy.decorrelatedJitter(base: Self.base, cap: Self.cap)
        let first = ContentionExperiment(clients: 60, policy: policy, seed: 11).run()
        #expect(first == ContentionExperiment(clients: 60, policy: policy, seed: 11).run())
        #expect(first != ContentionExperiment(clients: 60, policy: policy, seed: 12).run())
        let outage = ReconnectExperiment(connections: 200, policy: .fullJitter(), seed: 3)
        #expect(outage.run() == outage.run())
    }

    @Test("the herd is the connection machine: after the drop nobody retries before one backoff delay")
    func herdWaitsLikeTheMachine() {
        // Without jitter the delay after one failure is exactly the base, 1 s: the two
        // half-second bins before it stay empty (a herd retrying at once would fill them).
        let none = ReconnectExperiment(connections: 100, policy: .exponential(), bin: .milliseconds(500), seed: 2).run()
        #expect(none.attemptsPerBin.prefix(2) == [0, 0], "\(none.attemptsPerBin.prefix(4))")
        #expect(none.attemptsPerBin[2] == 100, "everyone at 1 s (plus latency): \(none.attemptsPerBin.prefix(4))")
    }

    @Test("after an outage, no jitter reconnects in synchronized waves; full jitter spreads the load")
    func reconnectStorm() throws {
        let outcomes = HerdStudy.reconnect(connections: 1000, seed: 1)
        let none = try #require(outcomes.first { $0.name == "no jitter" }?.outcome)
        let full = try #require(outcomes.first { $0.name == "full jitter" }?.outcome)
        for (name, outcome) in outcomes {
            #expect(outcome.reconnectsPerBin.reduce(0, +) == 1000, "\(name): everyone comes back")
            #expect(outcome.allReconnected >= .seconds(10), "\(name): nobody connects during the outage")
        }
        #expect(
            none.overloaded > 10 * max(1, full.overloaded),
            "overload refusals: \(none.overloaded) vs \(full.overloaded)")
        #expect(none.allReconnected > full.allReconnected * 3, "\(none.allReconnected) vs \(full.allReconnected)")
        // Lockstep: without jitter, all attempts after the outage fall into a few bins.
        let afterOutage = none.attemptsPerBin.dropFirst(20).filter { $0 > 0 }.count
        let spread = full.attemptsPerBin.dropFirst(20).filter { $0 > 0 }.count
        #expect(afterOutage * 3 < spread, "busy bins: no jitter \(afterOutage), full jitter \(spread)")
    }

    @Test("the tables list every policy and client count")
    func tables() {
        let rows = HerdStudy.contention(clientCounts: [5, 20], seeds: [1, 2])
        #expect(rows.count == 8)
        let table = HerdStudy.contentionTable(rows)
        #expect(table.split(separator: "\n").count == 4)
        for name in ["no jitter", "full jitter", "equal jitter", "decorrelated jitter"] {
            #expect(table.contains(name))
        }
        #expect(HerdStudy.contentionChart(rows, completion: true).series.count == 4)
    }
}
