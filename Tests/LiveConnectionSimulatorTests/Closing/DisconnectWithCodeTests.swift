import LiveConnection
import LiveConnectionSimulator
import Testing

import typealias LiveConnection.Mutex

/// The app's `disconnect(code:reason:)` in the simulator: an action of its own, in traces and
/// in the swarm, judged from what the server receives and what the app is shown.
@Suite("Simulator: disconnect with the app's own close frame")
struct DisconnectWithCodeTests {
    @Test(
        "the trace spells a coded disconnect with its code and reason, and a plain one as before",
        arguments: [
            (
                SimulationAction.disconnectWith(code: CloseCode(4000), reason: "signed out"),
                #"disconnect code=4000 reason="signed out""#
            ),
            (.disconnectWith(code: .normal, reason: ""), #"disconnect code=1000 reason="""#),
            (.disconnect, "disconnect"),
        ])
    func spelling(action: SimulationAction, words: String) throws {
        #expect(action.traceWords == words)
        #expect(try SimulationAction(traceWords: words) == action)
        #expect(FaultKind(of: action) == .disconnect)
    }

    @Test("a coded disconnect without its reason is refused with why")
    func reasonRequired() {
        #expect {
            try SimulationAction(traceWords: "disconnect code=4000")
        } throws: { error in
            guard case .malformedLine(_, _, let reason) = error as? TraceError else { return false }
            return reason.contains("reason")
        }
    }

    @Test("the swarm turns about half the app's disconnects into coded ones, from their own sub-seed")
    func swarmDrawsCodes() {
        let generator = ScenarioGenerator(duration: .seconds(3600))
        var plain = 0
        var coded: [CloseFrame] = []
        for seed in 0..<200 as Range<UInt64> {
            for scheduled in generator.scenario(seed: seed).schedule {
                switch scheduled.action {
                case .disconnect: plain += 1
                case .disconnectWith(let code, let reason):
                    #expect(code.isSendable, "\(code)")
                    coded.append(CloseFrame(code: code, reason: reason))
                default: break
                }
            }
        }
        #expect(coded.count > 50 && plain > 50, "\(coded.count) coded, \(plain) plain")
        #expect(Set(coded.map(\.code.rawValue)) == [1000, 1001, 3000, 4000, 4321])
    }

    /// Connects, disconnects with `code` and `reason` once open, then a reset and a broadcast
    /// follow; returns the violations, the phase lines of the log, and whether it was refused.
    static func disconnectRun(
        code: CloseCode, reason: String, variant: LogicVariant = .correct
    ) -> (violations: [Violation], phases: [String], refused: Bool) {
        let configuration = ScenarioGenerator.configurations[2]
        let scenario = Scenario(
            seed: 0, configuration: configuration, strategy: .fifo, duration: .seconds(60),
            schedule: [
                ScheduledAction(at: .zero, .subscribe("feed")),
                ScheduledAction(at: .zero, .connect(endpoint: 0)),
                ScheduledAction(at: .seconds(5), .disconnectWith(code: code, reason: reason)),
                ScheduledAction(at: .seconds(10), .resetConnection),
                ScheduledAction(at: .seconds(20), .broadcast(topic: "feed", text: "late")),
            ], managerSeed: 3)
        let result = SimulationRun(scenario, variant: variant).run()
        return (
            // Before the harness's own teardown at the end (its disconnect is not the app's).
            result.violations, result.log.filter { $0.contains("phase ") && !$0.hasPrefix("60000ms ") },
            result.log.contains { $0.contains("disconnect refused") }
        )
    }

    @Test("the server receives the app's code and reason; the app is stopped and nothing reconnects")
    func closesAsAsked() throws {
        let clock = VirtualClock()
        let network = SimulatedNetwork(clock: clock)
        let configuration = ScenarioGenerator.configurations[2]
        let monitor = InvariantMonitor(configuration: configuration, network: network, clock: clock)
        let phases = PhaseLog()
        _ = Simulation.run(strategy: .fifo, clock: clock, until: .seconds(120)) {
            let manager = ConnectionManager(
                configuration: configuration, transport: network, clock: clock, random: SplitMix64(seed: 2),
                observer: { input, effects in
                    monitor.observe(input, effects)
                    for case .report(let phase) in effects { phases.append(phase) }
                })
            await withDiscardingTaskGroup { group in
                group.addTask { await manager.run() }
                await manager.connect(to: Scenario.endpoint(0))
                do { try await clock.sleep(for: .seconds(5)) } catch { return }
                monitor.appDisconnects(with: CloseFrame(code: CloseCode(4000), reason: "signed out ✓"))
                do throws(CloseRequestError) {
                    try await manager.disconnect(code: CloseCode(4000), reason: "signed out ✓")
                } catch {
                    Issue.record("refused: \(error)")
                }
                do { try await clock.sleep(for: .seconds(60)) } catch { return }
                monitor.finish()
                group.cancelAll()
            }
        }
        #expect(monitor.violations.isEmpty, "\(monitor.violations)")
        let links = network.allLinks()
        #expect(links.count == 1, "nothing reconnected: \(links.count) connections")
        #expect(links.first?.clientClose == CloseFrame(code: CloseCode(4000), reason: "signed out ✓"))
        #expect(phases.all.last == .stopped(reason: "disconnected"), "\(phases.all)")
    }

    @Test("a manager that drops the app's code is caught: the server got 1000 \"disconnected\"")
    func droppedCodeCaught() throws {
        let variant = try #require(LogicVariant.named("forgets-close-code"))
        let run = Self.disconnectRun(code: CloseCode(4000), reason: "signed out", variant: variant)
        #expect(run.violations.map(\.rule) == [.disconnectClosesAsAsked], "\(run.violations)")
        #expect(run.violations.first?.detail.contains(#"4000 "signed out""#) == true)
    }

    @Test("a code an endpoint may not send is refused and changes nothing: still open, judged clean")
    func unsendableCodeRefused() {
        let run = Self.disconnectRun(code: CloseCode(1005), reason: "")
        #expect(run.refused)
        #expect(run.violations.isEmpty, "\(run.violations)")
        #expect(!run.phases.contains { $0.contains("stopped") }, "\(run.phases)")
    }

    @Test("the server's close frame reaches the app typed, in the wait and in the stop; a reset carries none")
    func serverCloseReachesApp() {
        let scenario = Scenario(
            seed: 0, configuration: ScenarioGenerator.configurations[2], strategy: .fifo, duration: .seconds(30),
            schedule: [
                ScheduledAction(at: .zero, .connect(endpoint: 0)),
                ScheduledAction(at: .seconds(2), .closeConnection(code: .internalError, reason: "overloaded ✓")),
                ScheduledAction(at: .seconds(8), .resetConnection),
                ScheduledAction(at: .seconds(14), .closeConnection(code: .forbidden, reason: "banned")),
            ], managerSeed: 5)
        let result = SimulationRun(scenario).run()
        #expect(result.violations.isEmpty, "\(result.violations)")
        let phases = result.log.filter { $0.contains("phase waiting") || $0.contains("phase stopped") }
        #expect(phases.contains { $0.contains(#"reason="closed 1011" close=1011 "overloaded ✓""#) }, "\(phases)")
        #expect(phases.contains { $0.contains(#"reason="error ECONNRESET""#) && !$0.contains("close=") }, "\(phases)")
        #expect(phases.contains { $0.contains(#"stopped reason="closed 4003" close=4003 "banned""#) }, "\(phases)")
    }
}

/// Phases in the order the manager reported them.
final class PhaseLog: Sendable {
    private let phases = Mutex<[Phase]>([])
    func append(_ phase: Phase) { phases.withLock { $0.append(phase) } }
    var all: [Phase] { phases.withLock { $0 } }
}
