import LiveConnection
import LiveConnectionSimulator
import TestScheduling
import Testing

/// Hostile servers: the network's behaviour, and the manager kept to its policy against them.
@Suite("Hostile servers", .computeBound)
struct HostileServerTests {
    static let endpoint = Scenario.endpoint(0)

    /// What an async operation returned or threw.
    static func outcome<T>(_ body: () async throws(TransportError) -> T) async -> Result<T, TransportError> {
        do { return .success(try await body()) } catch { return .failure(error) }
    }
    static let subscribeFeed = Message.text(#"{"type":"subscribe","topic":"feed"}"#)

    @Test("accept-then-close completes the handshake, takes the client's frames, then closes one latency later")
    func acceptThenClose() throws {
        let (event, at, accepts, sendAfter) = try SimulatedNetworkTests.simulate { network, clock in
            network.setLatency(.milliseconds(10))
            network.apply(.hostile(.acceptThenClose(.tokenExpired)))
            let accepts = network.acceptsConnections
            let connection = try await network.connect(to: Self.endpoint)
            // Written before the close arrives, as on a real socket: it does not fail.
            try await connection.send(Self.subscribeFeed)
            let event = try await connection.receive()
            let at = clock.now.sinceStart
            let sendAfter = await Self.outcome { () async throws(TransportError) in
                try await connection.send(Self.subscribeFeed)
            }
            return (event, at, accepts, sendAfter)
        }
        #expect(!accepts, "a hostile server is not a healthy one")
        #expect(event == .closed(code: .tokenExpired, reason: "hostile server"))
        #expect(at == .milliseconds(30), "handshake 20 ms, then the close one latency later")
        #expect(throws: TransportError.notConnected) { try sendAfter.get() }
    }

    @Test("malformed-frame fails the connection with 1002, as the real transport does")
    func malformedFrame() throws {
        let outcome = try SimulatedNetworkTests.simulate { network, _ in
            network.apply(.hostile(.malformedFrame))
            let connection = try await network.connect(to: Self.endpoint)
            return await Self.outcome { () async throws(TransportError) in try await connection.receive() }
        }
        #expect(throws: TransportError.protocolViolation(.protocolError, "reserved bits set")) { try outcome.get() }
    }

    @Test("slow-handshake answers that much later; hostile off makes the server healthy again")
    func slowHandshake() throws {
        let (slow, healthy, accepts) = try SimulatedNetworkTests.simulate { network, clock in
            network.setLatency(.milliseconds(5))
            network.apply(.hostile(.slowHandshake(.seconds(8))))
            _ = try await network.connect(to: Self.endpoint)
            let slow = clock.now.sinceStart
            network.apply(.hostile(nil))
            let before = clock.now
            _ = try await network.connect(to: Self.endpoint)
            return (slow, clock.now - before, network.acceptsConnections)
        }
        #expect(slow == .milliseconds(8010))
        #expect(healthy == .milliseconds(10))
        #expect(accepts)
    }

    /// Seed 000's test values with full jitter (100 ms … 2 s): the configuration where a
    /// hot loop is fastest and a zero wait is a legal draw.
    static func scenario(_ hostile: SimulationAction, seed: UInt64) -> Scenario {
        Scenario(
            seed: seed, configuration: ScenarioGenerator.configurations[2], strategy: .generated(.fifo, seed: seed),
            duration: .seconds(1800),
            schedule: [
                ScheduledAction(at: .zero, .subscribe("feed")),
                ScheduledAction(at: .zero, hostile),
                ScheduledAction(at: .zero, .connect(endpoint: 0)),
                ScheduledAction(
                    at: .seconds(1200),
                    hostile == .failHandshakes(status: 401) ? .failHandshakes(status: nil) : .hostile(nil)),
            ],
            managerSeed: seed)
    }

    static let servers: [SimulationAction] = [
        .hostile(.acceptThenClose(.normal)), .hostile(.acceptThenClose(.internalError)),
        .hostile(.acceptThenClose(.tokenExpired)), .hostile(.malformedFrame), .failHandshakes(status: 401),
        .hostile(.slowHandshake(.seconds(3))),
    ]

    @Test("the shipped manager keeps to its policy for 20 minutes of a hostile server, then opens", arguments: servers)
    func shippedManagerKeepsToPolicy(_ hostile: SimulationAction) {
        // Three seeds in CI's release step, one in a debug run (``TestScale/hostileServerSeeds``).
        for seed in 0..<UInt64(TestScale.hostileServerSeeds.count) {
            let result = SimulationRun(Self.scenario(hostile, seed: seed)).run()
            #expect(result.violations.isEmpty, "\(hostile) seed \(seed): \(result.violations)")
            let attempts = result.log.filter { $0.contains("-> phase connecting attempt=") }.count
            // Waits reach the 2 s cap within a few failures: about 1 s each on average.
            #expect(attempts < 2 * 1200, "\(attempts) attempts in 20 min")
            #expect(attempts > 100, "it kept trying: \(attempts)")
            let opened = result.log.contains { line in
                line.contains("phase open")
                    && (ObservedEvent(runLogLine: line).map { $0.at >= .seconds(1200) } ?? false)
            }
            #expect(opened, "open once the server is healthy again")
        }
    }

    @Test("no-hot-loop catches a manager that ignores its backoff against a server that accepts then closes")
    func hotLoopCaught() throws {
        let variant = try #require(LogicVariant.named("retries-immediately"))
        let result = SimulationRun(Self.scenario(.hostile(.acceptThenClose(.internalError)), seed: 0), variant: variant)
            .run()
        let violation = try #require(result.violations.first)
        #expect(violation.rule == .noHotLoop, "\(result.violations)")
        #expect(violation.at < .seconds(60), "within the first minute: \(violation)")
    }
}
