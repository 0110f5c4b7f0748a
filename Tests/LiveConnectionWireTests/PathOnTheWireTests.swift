import ExampleClients
import LiveConnection
import LiveConnectionSimulator
import LiveConnectionWire
import Testing

/// The device's network path in the wire world: the network loses it, each client's app is
/// told (`AppIntent.setPathViable`), and the judge reads it from the wire only. A client that waits
/// for the path is not a false alarm; a client that does not come back, or never finds its
/// silent socket dead, is still caught.
@Suite("The network path on the wire")
struct PathOnTheWireTests {
    /// A single client under `schedule`.
    static func scenario(_ schedule: [ScheduledAction], duration: Duration = .seconds(900)) -> WireScenario {
        var base = ScenarioGenerator(duration: duration).scenario(seed: 0)
        base.schedule = schedule
        return WireScenario(base: base, clients: 1)
    }

    /// Connected at 0; the path goes at 60 s and comes back `outage` later.
    static func outage(_ outage: Duration) -> WireScenario {
        scenario([
            ScheduledAction(at: .zero, .connect(endpoint: 0)),
            ScheduledAction(at: .seconds(60), .path(viable: false)),
            ScheduledAction(at: .seconds(60) + outage, .path(viable: true)),
        ])
    }

    /// The wire's attempt lines between two instants (exclusive), as "<ms>ms attempt …".
    static func attempts(_ result: WireRunResult, after start: Duration, before end: Duration) -> [String] {
        result.wire.filter { line in
            guard line.contains(" attempt "), !line.contains("failed"), !line.contains("opened"),
                let ms = Int64(line.prefix { $0.isNumber })
            else { return false }
            return .milliseconds(ms) > start && .milliseconds(ms) < end
        }
    }

    static func manager(_ variant: LogicVariant) -> ClientKind {
        let configuration = ConnectionConfiguration()
        return ClientKind(name: "manager", summary: "the manager, \(variant.name)", claims: WireClaims(configuration)) {
            ManagerClient(context: $0, configuration: configuration, logic: variant.logic(for: configuration))
        }
    }

    @Test("a manager told of a five-minute outage waits offline and reconnects at its return: no false alarm")
    func managerWaitsForThePath() {
        let result = WireRun(Self.outage(.seconds(300)), kind: ManagerClient.kind()).run()
        #expect(result.passed, "\(result.violations)")
        #expect(result.wire.contains("60000ms network path lost"))
        #expect(result.wire.contains("360000ms network path back"))
        // Probed within T, given up, then nothing dialled until the path returns.
        #expect(result.wire.contains { $0.hasSuffix("socket 1 closed by the client") })
        #expect(Self.attempts(result, after: .seconds(60), before: .seconds(360)).isEmpty)
        #expect(result.wire.contains { $0.hasPrefix("360000ms attempt 2 ") }, "no attempt at the path's return")
    }

    @Test("a manager whose app feeds it no path retries through the outage: its failures are failures, no false alarm")
    func managerWithoutAPathMonitor() {
        let deaf = ClientKind(name: "manager", summary: "no path monitor", claims: ManagerClient.kind().claims) {
            WithoutPathMonitor(ManagerClient(context: $0, configuration: ConnectionConfiguration()))
        }
        let result = WireRun(Self.outage(.seconds(300)), kind: deaf).run()
        #expect(result.passed, "\(result.violations)")
        #expect(result.wire.contains { $0.hasSuffix("failed: error ENETUNREACH") }, "it never dialled into the outage")
    }

    @Test("a manager planted to miss the path's return stays offline: wire-reconnects")
    func managerMissingThePathsReturn() {
        let result = WireRun(Self.outage(.seconds(300)), kind: Self.manager(.named("misses-path-return")!)).run()
        #expect(result.violations.map(\.rule) == [.wireReconnects], "\(result.violations)")
        #expect(result.violations.first.map { $0.at > .seconds(360) } ?? false, "judged during the outage")
    }

    @Test("the reconnecting actor spends its ten attempts on an outage and never comes back: wire-reconnects")
    func actorGivesUpDuringAnOutage() {
        // Started without a path: every attempt fails (ENETUNREACH), the tenth ends its loop.
        let scenario = Self.scenario([
            ScheduledAction(at: .zero, .path(viable: false)),
            ScheduledAction(at: .seconds(1), .connect(endpoint: 0)),
            ScheduledAction(at: .seconds(401), .path(viable: true)),
        ])
        let result = WireRun(scenario, kind: ExampleClients.reconnectingActor).run()
        #expect(result.violations.map(\.rule) == [.wireReconnects], "\(result.violations)")
        #expect(result.violations.first.map { $0.at > .seconds(401) } ?? false, "judged during the outage")
        #expect(result.wire.filter { $0.hasSuffix("failed: error ENETUNREACH") }.count == 10)
    }

    @Test("the reconnecting actor keeps a socket the path took: wire-dead-peer-given-up")
    func actorKeepsADeadSocket() {
        let result = WireRun(Self.outage(.seconds(300)), kind: ExampleClients.reconnectingActor).run()
        #expect(result.violations.map(\.rule).contains(.wireDeadPeerGivenUp), "\(result.violations)")
    }

    @Test("the notifications socket keeps a socket the path took: wire-dead-peer-given-up")
    func notificationsKeepsADeadSocket() {
        let result = WireRun(Self.outage(.seconds(300)), kind: ExampleClients.notifications).run()
        #expect(result.violations.map(\.rule).contains(.wireDeadPeerGivenUp), "\(result.violations)")
    }
}

/// A client whose app has no path monitor: every intent but the path's.
private struct WithoutPathMonitor: WireClient {
    let client: any WireClient
    init(_ client: any WireClient) { self.client = client }
    func run() async { await client.run() }
    func perform(_ intent: AppIntent) async {
        if case .setPathViable = intent { return }
        await client.perform(intent)
    }
    func isConnected() async -> Bool? { await client.isConnected() }
}
