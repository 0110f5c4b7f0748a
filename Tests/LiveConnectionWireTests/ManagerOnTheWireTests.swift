import LiveConnection
import LiveConnectionSimulator
import LiveConnectionWire
import Testing

/// Our own manager, through the same seam as any client, judged only from the wire.
@Suite("ConnectionManager on the wire")
struct ManagerOnTheWireTests {
    static let kind = ManagerClient.kind()

    @Test("passes every wire rule, single clients and herds", arguments: [0..<24 as Range<UInt64>])
    func passes(seeds: Range<UInt64>) {
        // Seeds 0..<24 hold herds (seed % 8 of the wire split) as well as single clients.
        let summary = WireExplorer(
            seeds: seeds, generator: WireScenarioGenerator(duration: .seconds(900)), kind: Self.kind
        ).run()
        #expect(summary.herdRuns > 0, "no herd among the seeds: the herd rules went unjudged")
        for failure in summary.failures {
            Issue.record(
                "seed \(failure.seed): \(failure.violations.map(\.description)); replay: livesim explore --client manager --seeds \(failure.seed)...\(failure.seed)"
            )
        }
    }

    @Test("the same seed gives the same wire, byte for byte")
    func deterministic() {
        let scenario = WireScenarioGenerator(duration: .seconds(600)).scenario(seed: 5)
        let first = WireRun(scenario, kind: Self.kind).run()
        let second = WireRun(scenario, kind: Self.kind).run()
        #expect(first.wire.count > 10)
        #expect(first.wire == second.wire)
    }

    @Test("failures count until a heartbeat is answered: the manager's claim holds, an open-resets claim does not")
    func backoffResetsWhenAHeartbeatIsAnswered() {
        // The shrunk form of seed 12 once the manager reset its backoff only on an answered
        // ping: sockets 2 and 3 open and resubscribe, then end before their first ping, so
        // the third retry is drawn with three failures, not one.
        var base = ScenarioGenerator(duration: .seconds(120)).scenario(seed: 12)
        base.schedule = [
            ScheduledAction(at: .zero, .connect(endpoint: 0)),
            ScheduledAction(at: .zero, .resetConnection),
            ScheduledAction(at: .milliseconds(800), .closeConnection(code: .goingAway, reason: "")),
            ScheduledAction(at: .milliseconds(964), .resetConnection),
        ]
        let scenario = WireScenario(base: base, clients: 1)
        let result = WireRun(scenario, kind: Self.kind).run()
        #expect(result.passed, "\(result.violations)")
        #expect(result.wire.contains { $0.contains("pong reached the client") }, "no heartbeat was answered")

        var claims = Self.kind.claims
        claims.backoffResets = .whenOpen
        let claimingLess = ClientKind(
            name: "manager", summary: "the manager, claiming an open resets its backoff", claims: claims
        ) {
            ManagerClient(context: $0, configuration: ConnectionConfiguration())
        }
        let judged = WireRun(scenario, kind: claimingLess).run()
        #expect(judged.violations.map(\.rule) == [.wireBackoffWithinClaim], "\(judged.violations)")
    }

    @Test("a terminal close during resubscription stops the manager (found from the wire)")
    func terminalCloseWhileResubscribing() {
        // The shrunk form of the first failure `livesim explore --client manager` found: the
        // resume frame's write is held back, the server closes with 4003 meanwhile; the
        // failed subscribe write used to be reported first and the manager reconnected.
        var base = ScenarioGenerator(duration: .seconds(120)).scenario(seed: 0)
        base.schedule = [
            ScheduledAction(at: .zero, .connect(endpoint: 0)),
            ScheduledAction(at: .seconds(10), .delaySendCompletion),
            // Moves at once: the second socket resumes first, and that write is held back.
            ScheduledAction(at: .seconds(10), .connect(endpoint: 1)),
            ScheduledAction(at: .milliseconds(10_500), .closeConnection(code: .forbidden, reason: "go away")),
        ]
        let result = WireRun(WireScenario(base: base, clients: 1), kind: Self.kind).run()
        #expect(result.passed, "\(result.violations)")
        #expect(result.wire.contains { $0.contains("close 4003") }, "the scenario no longer reaches the terminal close")
    }

    @Test("a terminal close on a socket given up at a background, unseen behind a stalled write, stops nothing")
    func terminalCloseOnASocketGivenUpBehindAStalledWrite() {
        // Seed 867 of the 10,000-seed release run, shrunk: a restart, and the new socket's
        // resume write is held back; the app goes to the background (the manager gives the
        // socket up, its close queued behind the stalled write, unseen by the server); the
        // server's 4003 then reaches a manager that no longer holds the socket, and the
        // foreground at that instant reconnects. The judge once took the 4003 as a stop.
        var base = WireScenarioGenerator(duration: .seconds(420)).scenario(seed: 867).base
        let background = ScheduledAction(at: .milliseconds(327_500), .setForeground(false))
        base.schedule = [
            ScheduledAction(at: .zero, .connect(endpoint: 0)),
            ScheduledAction(at: .seconds(327), .restartServer),
            ScheduledAction(at: .seconds(327), .delaySendCompletion),
            background,
            ScheduledAction(at: .milliseconds(327_521), .closeConnection(code: .forbidden, reason: "")),
            ScheduledAction(at: .milliseconds(327_521), .setForeground(true)),
        ]
        let result = WireRun(WireScenario(base: base, clients: 1), kind: Self.kind).run()
        #expect(result.passed, "\(result.violations)")
        #expect(result.wire.contains { $0.contains("close 4003") }, "the scenario no longer reaches the terminal close")
        #expect(result.wire.contains { $0.hasPrefix("327521ms attempt 3") }, "the foreground no longer reconnects")

        // The judge still holds a client to the code when nothing gave the socket up: a
        // manager that ignores 4003 (but claims it terminal) keeps the socket through the
        // same stall without the background, and reconnects after the code.
        let ignoring = {
            var configuration = ConnectionConfiguration()
            configuration.terminalCloseCodes = []
            return configuration
        }()
        let claimingMore = ClientKind(
            name: "manager", summary: "a manager that ignores 4003, claiming it terminal",
            claims: Self.kind.claims
        ) {
            ManagerClient(context: $0, configuration: ignoring)
        }
        base.schedule.removeAll { $0 == background }
        let judged = WireRun(WireScenario(base: base, clients: 1), kind: claimingMore).run()
        #expect(judged.violations.map(\.rule) == [.wireQuietAfterStop], "\(judged.violations)")
    }
}
