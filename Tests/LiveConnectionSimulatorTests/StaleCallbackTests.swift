import LiveConnection
import LiveConnectionSimulator
import Testing

/// Stale callbacks through the transport seam only: an old connection that still delivers
/// a frame, a close, an error or a pong on its own stream after the manager closed it (its
/// closing handshake lingers), and a handshake that completes after it was given up.
@Suite("Stale callbacks")
struct StaleCallbackTests {
    static func scenario(_ schedule: [ScheduledAction], seed: UInt64 = 0) -> Scenario {
        var configuration = ConnectionConfiguration()
        configuration.heartbeatInterval = .seconds(25)
        configuration.heartbeatTimeout = .seconds(10)
        return Scenario(
            seed: seed, configuration: configuration, strategy: .fifo, duration: .seconds(60),
            faults: FaultMix(rates: []),
            schedule: [
                ScheduledAction(at: .zero, .subscribe("feed")), ScheduledAction(at: .zero, .connect(endpoint: 0)),
            ]
                + schedule,
            managerSeed: 1)
    }

    @Test("a late frame of a torn-down connection reaches the machine through the receive loop and changes nothing")
    func lateMessage() throws {
        let run = SimulationRun(
            Self.scenario([
                ScheduledAction(at: .seconds(1), .broadcast(topic: "feed", text: "one")),
                ScheduledAction(at: .seconds(5), .deliverStale(.message)),
                ScheduledAction(at: .seconds(10), .connect(endpoint: 1)),
            ])
        ).run()
        #expect(run.violations.isEmpty, "\(run.violations)")
        #expect(run.network.lateCallbacks == 1)
        let closed = try #require(run.log.firstIndex { $0.contains("close g1 code=1000 reason=\"endpoint changed\"") })
        let late = try #require(
            run.log.firstIndex { $0.contains("input received g1 seq=1 -> ") && $0.hasSuffix("-> ") })
        #expect(late > closed, "\(run.log)")
        #expect(run.log.filter { $0.contains("-> ") && $0.contains("deliver") }.count == 1, "delivered once, not twice")
    }

    @Test(
        "a late close of the old connection, 2 s after the switch, cannot tear down the open new one (and does, without the generation check)"
    )
    func lateClose() throws {
        let schedule = [
            ScheduledAction(at: .seconds(5), .deliverStale(.close, after: .seconds(2))),
            ScheduledAction(at: .seconds(10), .connect(endpoint: 1)),
        ]
        let correct = SimulationRun(Self.scenario(schedule)).run()
        #expect(correct.violations.isEmpty, "\(correct.violations)")
        #expect(correct.network.lateCallbacks == 1)
        // g2 opened at 10 s; g1's close arrives at 12 s, on g1's own connection, and changes nothing.
        let opened = try #require(correct.log.firstIndex { $0.hasPrefix("10000ms input flushed g2 -> ") })
        let late = try #require(
            correct.log.firstIndex { $0 == "12000ms input closed g1 code=1011 reason=\"late close\" -> " },
            "\(correct.log)")
        #expect(opened < late)

        let broken = SimulationRun(Self.scenario(schedule), variant: try #require(.named("ignores-generations"))).run()
        let violation = try #require(broken.violations.first)
        #expect(violation.rule == .staleInputsChangeNothing)
        #expect(violation.detail.contains("closed g1"), "\(violation)")
        #expect(violation.at == .seconds(12), "\(violation)")
    }

    @Test("a late error of the old connection is fenced too (and retries the live one, without the check)")
    func lateError() throws {
        let schedule = [
            ScheduledAction(at: .seconds(5), .deliverStale(.error, after: .seconds(1))),
            ScheduledAction(at: .seconds(10), .connect(endpoint: 1)),
        ]
        let correct = SimulationRun(Self.scenario(schedule)).run()
        #expect(correct.violations.isEmpty, "\(correct.violations)")
        #expect(correct.network.lateCallbacks == 1)
        #expect(
            correct.log.contains { $0 == "11000ms input failed g1 \"error ECONNRESET\" -> " }, "\(correct.log)")

        let broken = SimulationRun(Self.scenario(schedule), variant: try #require(.named("ignores-generations"))).run()
        let violation = try #require(broken.violations.first)
        #expect(violation.rule == .staleInputsChangeNothing)
        #expect(violation.detail.contains("failed g1"), "\(violation)")
    }

    @Test("a late callback with no one left to read it is dropped, and the close does not linger for it")
    func lateCallbackWithNoReader() throws {
        // The server resets g1 first: its receive loop ends, so the armed close can reach no one.
        let run = SimulationRun(
            Self.scenario([
                ScheduledAction(at: .seconds(5), .deliverStale(.close, after: .seconds(2))),
                ScheduledAction(at: .seconds(10), .resetConnection),
            ])
        ).run()
        #expect(run.violations.isEmpty, "\(run.violations)")
        #expect(run.network.lateCallbacks == 0)
        #expect(!run.log.contains { $0.contains("late close") }, "\(run.log)")
    }

    @Test("every late callback of a swarm run comes from a generation the manager had already closed")
    func lateCallbacksAreStale() {
        var delivered = 0
        for seed: UInt64 in 0..<12 {
            let generator = ScenarioGenerator(
                duration: .seconds(600),
                faults: FaultMix(rates: [
                    .init(kind: .staleCallback, meanInterval: .seconds(10)),
                    .init(kind: .endpointSwitch, meanInterval: .seconds(30)),
                    .init(kind: .reset, meanInterval: .seconds(60)),
                ]))
            let run = SimulationRun(generator.scenario(seed: seed)).run()
            #expect(run.violations.isEmpty, "seed \(seed): \(run.violations)")
            var closed: Set<String> = []
            for line in run.log {
                for effect in line.split(separator: "; ") {
                    if let range = effect.range(of: "close g") {
                        closed.insert(String(effect[range.upperBound...].prefix { $0.isNumber }))
                    }
                }
                guard line.contains("reason=\"late close\" -> ") else { continue }
                delivered += 1
                let g = line.split(separator: " ")[3]  // "<t> input closed gN …"
                #expect(closed.contains(String(g.dropFirst())), "seed \(seed): \(line) before g was closed")
            }
        }
        #expect(delivered > 0, "no late close was delivered: the test checks nothing")
    }

    @Test("a pong in flight when the connection is torn down arrives late and is ignored")
    func latePong() throws {
        let run = SimulationRun(
            Self.scenario([
                ScheduledAction(at: .seconds(1), .setLatency(.milliseconds(500))),
                ScheduledAction(at: .seconds(20), .deliverStale(.pong)),
                // Open at 0 s, so the heartbeat pings at 25 s and its pong is due at 26 s: the
                // client tears the connection down first (the background), while its receive
                // loop still reads; the pong arrives on that loop during the closing handshake.
                // (A reset would end the receive side first: no pong comes after it.)
                ScheduledAction(at: .milliseconds(25_200), .setForeground(false)),
            ])
        ).run()
        #expect(run.violations.isEmpty, "\(run.violations)")
        #expect(run.network.lateCallbacks == 1, "\(run.log)")
        #expect(run.log.contains { $0.contains("input pong g1 -> ") && $0.hasSuffix("-> ") }, "\(run.log)")
    }

    @Test(
        "a handshake that completes after the attempt was given up is closed at once (and opens the new one, without the check)"
    )
    func lateOpen() throws {
        // Endpoint 1 replaces the connection to endpoint 0; its handshake (g2) hangs and is
        // armed; endpoint 0 again gives g2 up for g3, and g2's handshake completes anyway.
        let schedule = [
            ScheduledAction(at: .seconds(1), .hangHandshakes(true)),
            ScheduledAction(at: .seconds(1), .connect(endpoint: 1)),
            ScheduledAction(at: .seconds(2), .deliverStale(.open)),
            ScheduledAction(at: .seconds(3), .connect(endpoint: 0)),
        ]
        let correct = SimulationRun(Self.scenario(schedule)).run()
        #expect(correct.violations.isEmpty, "\(correct.violations)")
        #expect(correct.network.lateCallbacks == 1)
        #expect(
            correct.log.contains { $0 == "3000ms input opened g2 -> close g2 code=1000 reason=\"stale connection\"" },
            "\(correct.log)")

        let broken = SimulationRun(Self.scenario(schedule), variant: try #require(.named("ignores-generations"))).run()
        let violation = try #require(broken.violations.first)
        #expect(violation.rule == .staleInputsChangeNothing)
        #expect(violation.detail.contains("g2"), "\(violation)")
    }
}
