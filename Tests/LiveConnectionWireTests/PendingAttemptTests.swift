import LiveConnection
import LiveConnectionSimulator
import LiveConnectionWire
import Testing

/// A verdict must describe what the wire shows: a client waiting forever on one attempt
/// has not "given up", and the message about it must name the pending attempt.
@Suite("Verdicts about a pending attempt")
struct PendingAttemptTests {
    @Test("a client that waits on a hanging handshake is told its attempt is pending, not that it gave up")
    func pendingAttemptIsNamed() throws {
        // The manager really waits an hour on a handshake, but claims the default 10 s.
        var patient = ConnectionConfiguration()
        patient.connectTimeout = .seconds(3600)
        let configuration = patient
        let kind = ClientKind(
            name: "patient", summary: "no real connect timeout", claims: WireClaims(ConnectionConfiguration())
        ) { ManagerClient(context: $0, configuration: configuration) }
        var base = ScenarioGenerator(duration: .seconds(300)).scenario(seed: 0)
        base.schedule = [
            ScheduledAction(at: .zero, .hangHandshakes(true)),
            ScheduledAction(at: .seconds(1), .connect(endpoint: 0)),
        ]
        let result = WireRun(WireScenario(base: base, clients: 1), kind: kind).run()
        let violation = try #require(result.violations.first { $0.rule == .wireReconnects }, "\(result.violations)")
        #expect(violation.description.contains("attempt 1, made at 1000ms, is still pending"), "\(violation)")
        #expect(!violation.description.contains("gave up"), "\(violation)")
    }
}
