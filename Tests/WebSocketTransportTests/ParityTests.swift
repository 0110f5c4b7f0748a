import LiveConnection
import LiveConnectionSimulator
import TestScheduling
import Testing

/// One scenario source, two worlds: each scenario is written once and must give the same
/// outcome in virtual time against the simulated server and in real time against
/// ``LiveTestServer`` over real sockets (docs/serve.md, "Parity").
@Suite("Parity: the same scenario in the simulator and on real sockets", .waitsOnPeers, .timeLimit(.minutes(2)))
struct ParityTests {
    enum World: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case simulated, real
        var testDescription: String { rawValue }
    }

    /// `seq text {"seq":N,"topic":"loans","text":T}` as the outcome spells a delivered message.
    static func delivered(_ sequence: Int, _ text: String) -> String {
        #"\#(sequence) text {"seq":\#(sequence),"topic":"loans","text":"\#(text)"}"#
    }

    static let scenarios: [ParityScenario] = [
        ParityScenario(
            name: "resets: reconnect, resubscribe, resume replays what was missed",
            steps: [
                .act(.subscribe("loans")), .act(.connect(endpoint: 0)), .await(.open),
                .act(.broadcast(topic: "loans", text: "first")), .await(.message(sequence: 1)),
                .act(.resetConnection), .await(.open),
                .act(.broadcast(topic: "loans", text: "second")), .await(.message(sequence: 2)),
                .act(.resetConnection), .act(.broadcast(topic: "loans", text: "missed")),
                .await(.open), .await(.message(sequence: 3)),
            ],
            expected: ParityOutcome(
                // The attempt count goes on: a connection that never answered a heartbeat has
                // not proved itself, so its drop does not reset the backoff (docs/architecture.md).
                phases: [
                    "idle", "connecting attempt=1", "open attempt=1", #"waiting reason="error ECONNRESET""#,
                    "connecting attempt=2", "open attempt=2", #"waiting reason="error ECONNRESET""#,
                    "connecting attempt=3", "open attempt=3",
                ],
                messages: [delivered(1, "first"), delivered(2, "second"), delivered(3, "missed")],
                subscriptions: ["1:loans", "2:loans", "3:loans"])),
        ParityScenario(
            name: "a silent peer is declared dead by the heartbeat; thawed, the manager reopens and resubscribes",
            configuration: ParityScenario.heartbeatConfiguration,
            steps: [
                .act(.subscribe("loans")), .act(.connect(endpoint: 0)), .await(.open), .await(.serverLog(entries: 1)),
                .act(.freeze), .await(.waiting), .act(.thaw), .await(.open),
                .act(.broadcast(topic: "loans", text: "thawed")), .await(.message(sequence: 1)),
            ],
            expected: ParityOutcome(
                phases: [
                    "idle", "connecting attempt=1", "open attempt=1", #"waiting reason="heartbeat missed""#,
                    "connecting attempt=2", "open attempt=2",
                ],
                messages: [delivered(1, "thawed")],
                subscriptions: ["1:loans", "2:loans"])),
        ParityScenario(
            name:
                "an idle timeout below P drops the connection silently; the heartbeat notices; lifted, the manager reopens",
            configuration: ParityScenario.heartbeatConfiguration,
            steps: [
                .act(.subscribe("loans")), .act(.connect(endpoint: 0)), .await(.open), .await(.serverLog(entries: 1)),
                // The lift comes between the miss and the reconnect, which waits at least 1 s
                // (heartbeatConfiguration): the new connection never sees the idle timeout.
                .act(.setIdleTimeout(.milliseconds(300))), .await(.waiting), .act(.setIdleTimeout(nil)),
                .await(.open),
                .act(.broadcast(topic: "loans", text: "awake")), .await(.message(sequence: 1)),
            ],
            expected: ParityOutcome(
                phases: [
                    "idle", "connecting attempt=1", "open attempt=1", #"waiting reason="heartbeat missed""#,
                    "connecting attempt=2", "open attempt=2",
                ],
                messages: [delivered(1, "awake")],
                subscriptions: ["1:loans", "2:loans"])),
        ParityScenario(
            name: "a token expiry (4001) refreshes and reconnects at once, resubscribed",
            steps: [
                .act(.subscribe("loans")), .act(.connect(endpoint: 0)), .await(.open), .await(.serverLog(entries: 1)),
                .act(.closeConnection(code: .tokenExpired, reason: "token expired")), .await(.open),
                .act(.broadcast(topic: "loans", text: "fresh")), .await(.message(sequence: 1)),
            ],
            expected: ParityOutcome(
                phases: [
                    "idle", "connecting attempt=1", "open attempt=1",
                    #"waiting reason="closed 4001" close=4001 "token expired""#,
                    "connecting attempt=2", "open attempt=2",
                ],
                messages: [delivered(1, "fresh")],
                subscriptions: ["1:loans", "2:loans"])),
        ParityScenario(
            name: "a restart forgets subscriptions; the manager resubscribes and resumes by sequence",
            steps: [
                .act(.subscribe("loans")), .act(.connect(endpoint: 0)), .await(.open),
                .act(.broadcast(topic: "loans", text: "before")), .await(.message(sequence: 1)),
                .act(.restartServer), .act(.broadcast(topic: "loans", text: "during")),
                .await(.open), .await(.message(sequence: 2)),
                .act(.broadcast(topic: "loans", text: "after")), .await(.message(sequence: 3)),
            ],
            expected: ParityOutcome(
                phases: [
                    "idle", "connecting attempt=1", "open attempt=1", #"waiting reason="error ECONNRESET""#,
                    "connecting attempt=2", "open attempt=2",
                ],
                messages: [delivered(1, "before"), delivered(2, "during"), delivered(3, "after")],
                subscriptions: ["1:loans", "2:loans"])),
    ]

    @Test("the scenario gives its outcome", arguments: scenarios, World.allCases)
    func parity(scenario: ParityScenario, world: World) async throws {
        let outcome =
            switch world {
            case .simulated: try SimulatedStage.play(scenario)
            case .real: try await RealStage.play(scenario)
            }
        #expect(outcome == scenario.expected, "\(world) world:\n\(outcome)")
    }
}
