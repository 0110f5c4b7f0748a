import LiveConnection
import LiveConnectionSimulator
import Testing

/// Stale callbacks through the shell's own paths: a connection that still delivers a
/// frame, a close or a pong after the manager tore its generation down.
@Suite("Stale callbacks")
struct StaleCallbackTests {
    static func scenario(_ schedule: [ScheduledAction], seed: UInt64 = 0) -> Scenario {
        var configuration = ConnectionConfiguration()
        configuration.heartbeatInterval = .seconds(25)
        configuration.heartbeatTimeout = .seconds(10)
        return Scenario(
            seed: seed, configuration: configuration, strategy: .fifo, duration: .seconds(60),
            faults: FaultMix(rates: []),
            schedule: [ScheduledAction(at: .zero, .subscribe("feed")), ScheduledAction(at: .zero, .connect(endpoint: 0))]
                + schedule,
            managerSeed: 1)
    }

    @Test("a late frame of a torn-down connection reaches the machine through the receive loop and changes nothing")
    func lateMessage() throws {
        let run = SimulationRun(Self.scenario([
            ScheduledAction(at: .seconds(1), .broadcast(topic: "feed", text: "one")),
            ScheduledAction(at: .seconds(5), .deliverStale(.message)),
            ScheduledAction(at: .seconds(10), .connect(endpoint: 1)),
        ])).run()
        #expect(run.violations.isEmpty, "\(run.violations)")
        #expect(run.network.lateCallbacks == 1)
        let closed = try #require(run.log.firstIndex { $0.contains("close g1 code=1000 reason=\"endpoint changed\"") })
        let late = try #require(run.log.firstIndex { $0.contains("input received g1 seq=1 -> ") && $0.hasSuffix("-> ") })
        #expect(late > closed, "\(run.log)")
        #expect(run.log.filter { $0.contains("-> ") && $0.contains("deliver") }.count == 1, "delivered once, not twice")
    }

    @Test("a late close of the old connection cannot tear down the new attempt (and does, without the generation check)")
    func lateClose() throws {
        let schedule = [
            ScheduledAction(at: .seconds(5), .deliverStale(.close)),
            ScheduledAction(at: .seconds(10), .connect(endpoint: 1)),
        ]
        let correct = SimulationRun(Self.scenario(schedule)).run()
        #expect(correct.violations.isEmpty, "\(correct.violations)")
        #expect(correct.network.lateCallbacks == 1)
        #expect(correct.log.contains { $0.contains("input closed g1 code=1011 reason=\"late close\" -> ") && $0.hasSuffix("-> ") })

        let broken = SimulationRun(Self.scenario(schedule), variant: try #require(.named("ignores-generations"))).run()
        let violation = try #require(broken.violations.first)
        #expect(violation.invariant == .staleInputsChangeNothing)
        #expect(violation.detail.contains("closed g1"), "\(violation)")
    }

    @Test("a pong in flight when the connection is torn down arrives late and is ignored")
    func latePong() throws {
        let run = SimulationRun(Self.scenario([
            ScheduledAction(at: .seconds(1), .setLatency(.milliseconds(500))),
            ScheduledAction(at: .seconds(20), .deliverStale(.pong)),
            // Open at 0 s, so the heartbeat pings at 25 s and its pong is due at 26 s: reset so that the client learns of it (0.5 s later) first.
            ScheduledAction(at: .milliseconds(25_200), .resetConnection),
        ])).run()
        #expect(run.violations.isEmpty, "\(run.violations)")
        #expect(run.network.lateCallbacks == 1, "\(run.log)")
        #expect(run.log.contains { $0.contains("input pong g1 -> ") && $0.hasSuffix("-> ") }, "\(run.log)")
    }

    @Test("a handshake that completes after the attempt was given up is closed at once (and opens the new one, without the check)")
    func lateOpen() throws {
        // Endpoint 1 replaces the connection to endpoint 0; its handshake hangs; g1's "opened" arrives late.
        let schedule = [
            ScheduledAction(at: .seconds(5), .hangHandshakes(true)),
            ScheduledAction(at: .seconds(5), .connect(endpoint: 1)),
            ScheduledAction(at: .seconds(5), .deliverStale(.open)),
        ]
        let correct = SimulationRun(Self.scenario(schedule)).run()
        #expect(correct.violations.isEmpty, "\(correct.violations)")
        #expect(
            correct.log.contains { $0.hasSuffix("input opened g1 -> close g1 code=1000 reason=\"stale connection\"") },
            "\(correct.log)")

        let broken = SimulationRun(Self.scenario(schedule), variant: try #require(.named("ignores-generations"))).run()
        let violation = try #require(broken.violations.first)
        #expect(violation.invariant == .staleInputsChangeNothing)
        #expect(violation.detail.contains("opened g1"), "\(violation)")
    }
}
