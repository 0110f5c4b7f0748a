import LiveConnectionSimulator
import Testing

@testable import LiveConnection

/// Seed 000's three scenarios, in virtual time against the in-memory server.
@Suite("Seed 000 scenarios")
struct Seed000ScenarioTests {
    static func testConfiguration() -> ConnectionConfiguration {
        var configuration = ConnectionConfiguration()
        configuration.heartbeatInterval = .milliseconds(500)
        configuration.heartbeatTimeout = .milliseconds(500)
        configuration.backoff = .fullJitter(base: .milliseconds(100), cap: .seconds(2))
        return configuration
    }

    @Test(
        "two resets while subscribed: three connections, each resubscribing both topics",
        arguments: [0, 1, 2] as [UInt64])
    func twoResets(seed: UInt64) {
        let server = InMemoryServer()
        let run = ManagerHarness.simulate(seed: seed, configuration: Self.testConfiguration(), server: server) {
            harness in
            var events = await harness.manager.events().makeAsyncIterator()
            await harness.manager.subscribe("availability")
            await harness.manager.subscribe("loans")
            await harness.manager.connect(to: ManagerHarness.url)
            for _ in 0..<2 {
                await harness.waitFor(&events) { $0.isOpen }
                harness.server.resetAll()
            }
            await harness.waitFor(&events) { $0.isOpen }
        }
        #expect(run.finished)
        let log = run.log
        #expect(
            server.subscriptionLog == [
                "1:availability", "1:loans", "2:availability", "2:loans", "3:availability", "3:loans",
            ])
        let waits = log.filter { $0.contains("waiting") }
        #expect(waits.count == 2, "log: \(log)")
        #expect(waits.allSatisfy { $0.contains("reason=\"error ECONNRESET\"") }, "log: \(log)")
        #expect(log.filter { $0.contains(" phase open attempt=") }.count == 3, "log: \(log)")
    }

    @Test("a frozen server is declared dead within P + T of virtual time", arguments: [0, 1, 2, 3] as [UInt64])
    func frozenServer(seed: UInt64) throws {
        let server = InMemoryServer()
        let frozenAt = Locked<VirtualClock.Instant?>(nil)
        let run = ManagerHarness.simulate(seed: seed, configuration: Self.testConfiguration(), server: server) {
            harness in
            var events = await harness.manager.events().makeAsyncIterator()
            await harness.manager.connect(to: ManagerHarness.url)
            await harness.waitFor(&events) { $0.isOpen }
            // Let a few heartbeats succeed, then freeze at an instant between pings.
            try? await harness.clock.sleep(for: .milliseconds(1_730 + 97 * Int(seed)))
            harness.server.freeze()
            frozenAt.set(harness.clock.now)
            await harness.waitFor(&events) {
                if case .phase(.waiting) = $0 { true } else { false }
            }
        }
        #expect(run.finished)
        let waiting = try #require(run.log.last)
        #expect(waiting.contains("reason=\"heartbeat missed\""), "log: \(run.log)")
        let frozen = try #require(frozenAt.value)
        let detection = frozen.duration(to: run.end)
        #expect(detection > .zero && detection <= .milliseconds(1_000), "detected after \(detection)")
        #expect(server.connectionCount == 1)
    }

    @Test("close 4003 stops: no further connection, ever")
    func forbiddenStops() throws {
        let server = InMemoryServer()
        let run = ManagerHarness.simulate(
            configuration: Self.testConfiguration(), server: server, limit: .seconds(7200)
        ) { harness in
            var events = await harness.manager.events().makeAsyncIterator()
            await harness.manager.connect(to: ManagerHarness.url)
            await harness.waitFor(&events) { $0.isOpen }
            harness.server.closeAll(code: .forbidden, reason: "forbidden")
            await harness.waitFor(&events) {
                if case .phase(.stopped) = $0 { true } else { false }
            }
            // An hour of virtual time later, still nothing.
            try? await harness.clock.sleep(for: .seconds(3600))
        }
        #expect(run.finished)
        #expect(
            run.log.last?.hasSuffix(#"phase stopped reason="closed 4003" close=4003 "forbidden""#) == true,
            "log: \(run.log)")
        #expect(server.connectionCount == 1)
    }

    @Test("the same seed gives the identical event log; another seed a different one")
    func determinism() {
        func log(_ seed: UInt64) -> [String] {
            ManagerHarness.simulate(seed: seed, configuration: Self.testConfiguration()) { harness in
                var events = await harness.manager.events().makeAsyncIterator()
                await harness.manager.subscribe("loans")
                await harness.manager.connect(to: ManagerHarness.url)
                for _ in 0..<5 {
                    await harness.waitFor(&events) { $0.isOpen }
                    harness.server.resetAll()
                }
            }.log
        }
        #expect(log(42) == log(42))
        #expect(log(42) != log(43))
    }
}
