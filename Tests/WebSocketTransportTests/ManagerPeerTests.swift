import Foundation
import LiveConnection
import Testing

@testable import WebSocketTransport

/// Collects a manager's events so a test can wait for one and then read the whole log.
actor EventLog {
    private(set) var events: [ConnectionEvent] = []
    private var waiters:
        [(predicate: @Sendable (ConnectionEvent) -> Bool, from: Int, continuation: CheckedContinuation<Void, Never>)] =
            []

    func record(_ event: ConnectionEvent) {
        events.append(event)
        let index = events.count - 1
        waiters.removeAll { waiter in
            guard index >= waiter.from, waiter.predicate(event) else { return false }
            waiter.continuation.resume()
            return true
        }
    }

    /// Waits for an event recorded at or after position `from` that matches.
    func wait(from: Int = 0, for predicate: @escaping @Sendable (ConnectionEvent) -> Bool) async {
        if events[min(from, events.count)...].contains(where: predicate) { return }
        await withCheckedContinuation { waiters.append((predicate, from, $0)) }
    }

    var count: Int { events.count }

    var phases: [Phase] {
        events.compactMap { if case .phase(let phase) = $0 { phase } else { nil } }
    }

    var messages: [(Message, UInt64?)] {
        events.compactMap { if case .message(let message, let sequence) = $0 { (message, sequence) } else { nil } }
    }
}

/// Seed 000's measurements against a real server: the manager over ``WebSocketTransport``.
@Suite("Manager over the real transport against a Python live server", PeerServer.enabledTrait, .timeLimit(.minutes(2)))
struct ManagerPeerTests {
    /// P = T = 0.5 s as in seed 000; `quietHeartbeat` for tests that are not about the
    /// heartbeat, so a test run that starves the cooperative pool for a while cannot turn
    /// a late pong into a spurious "heartbeat missed".
    static func configuration(quietHeartbeat: Bool = false) -> ConnectionConfiguration {
        var configuration = ConnectionConfiguration()
        configuration.heartbeatInterval = quietHeartbeat ? .seconds(30) : .milliseconds(500)
        configuration.heartbeatTimeout = quietHeartbeat ? .seconds(30) : .milliseconds(500)
        configuration.connectTimeout = quietHeartbeat ? .seconds(30) : .seconds(1)
        configuration.backoff = .fullJitter(base: .milliseconds(100), cap: .seconds(1))
        return configuration
    }

    static func isOpen(_ event: ConnectionEvent) -> Bool { event == .phase(.open) }

    static func isWaiting(_ event: ConnectionEvent) -> Bool {
        if case .phase(.waiting) = event { true } else { false }
    }

    static func publish(_ topic: String, _ data: String, kind: String = "publish") -> Message {
        .text(#"{"type":"\#(kind)","topic":"\#(topic)","data":"\#(data)"}"#)
    }

    /// Runs a manager on the real transport with `body`, then cancels it; returns every event seen.
    @discardableResult
    static func withManager(
        server: PeerServer, quietHeartbeat: Bool = false, transport: WebSocketTransport = WebSocketTransport(),
        _ body: @escaping @Sendable (ConnectionManager, EventLog) async throws -> Void
    ) async throws -> EventLog {
        let manager = ConnectionManager(
            configuration: configuration(quietHeartbeat: quietHeartbeat), transport: transport)
        let log = EventLog()
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                await manager.run()
                return false
            }
            let events = await manager.events()
            group.addTask {
                for await event in events { await log.record(event) }
                return false
            }
            // A regression must fail the test, not hang the run: the scenario gets two minutes.
            group.addTask {
                try await ContinuousClock().sleep(for: .seconds(120))
                return true
            }
            group.addTask {
                try await body(manager, log)
                return false
            }
            // The manager and the event pump run until cancelled, so the first child to end is
            // the body (false) or, if the scenario is stuck, the time limit (true).
            let timedOut = try await group.next() ?? false
            if timedOut { Issue.record("the scenario did not finish; events: \(await log.events)") }
            group.cancelAll()
        }
        return log
    }

    @Test("reconnects after resets and resubscribes on every new connection; resume replays what was missed")
    func resetsAndResume() async throws {
        let server = try await PeerServer.start("live_server.py")
        defer { server.stop() }
        let log = try await Self.withManager(server: server, quietHeartbeat: true) { manager, log in
            await manager.subscribe("loans")
            await manager.connect(to: server.url("/live"))
            await log.wait(for: Self.isOpen)
            try await manager.send(Self.publish("loans", "first"))
            await log.wait { if case .message = $0 { true } else { false } }

            // A reset: the manager reports it as seed 000 measured, reconnects, resubscribes.
            var mark = await log.count
            try await manager.send(.text(#"{"type":"reset"}"#))
            await log.wait(from: mark, for: Self.isOpen)
            mark = await log.count
            try await manager.send(Self.publish("loans", "second"))
            await log.wait(from: mark) { if case .message = $0 { true } else { false } }

            // A message published while the connection is down arrives once, by resume.
            mark = await log.count
            try await manager.send(Self.publish("loans", "missed", kind: "publish-then-reset"))
            await log.wait(from: mark, for: Self.isOpen)
            await log.wait(from: mark) { if case .message(_, 3) = $0 { true } else { false } }
        }
        let delivered = await log.messages.map { message, sequence in
            let text = if case .text(let text) = message { text } else { "" }
            return "\(sequence ?? 0) \(text)"
        }
        #expect(
            delivered == [
                #"1 {"seq": 1, "topic": "loans", "data": "first"}"#,
                #"2 {"seq": 2, "topic": "loans", "data": "second"}"#,
                #"3 {"seq": 3, "topic": "loans", "data": "missed"}"#,
            ])
        let reasons = await log.phases.compactMap { if case .waiting(let reason, _) = $0 { reason } else { nil } }
        #expect(reasons == ["error ECONNRESET", "error ECONNRESET"])
        #expect(await log.phases.filter { $0 == .open }.count == 3)
    }

    @Test("a frozen server (SIGSTOP) is declared dead by the heartbeat; thawed (SIGCONT), the manager reopens")
    func frozenAndThawed() async throws {
        let server = try await PeerServer.start("live_server.py")
        defer { server.stop() }
        let recorded = try await Self.withManager(server: server) { manager, log in
            await manager.subscribe("loans")
            await manager.connect(to: server.url("/live"))
            await log.wait(for: Self.isOpen)
            let mark = await log.count
            server.signal(SIGSTOP)
            await log.wait(from: mark, for: Self.isWaiting)
            server.signal(SIGCONT)
            await log.wait(from: mark, for: Self.isOpen)
            // Resubscribed: a message on the topic reaches us on the new connection.
            let afterThaw = await log.count
            try await manager.send(Self.publish("loans", "thawed"))
            await log.wait(from: afterThaw) { if case .message = $0 { true } else { false } }
        }
        let phases = await recorded.phases
        let firstWait = try #require(phases.first { if case .waiting = $0 { true } else { false } })
        guard case .waiting(let reason, _) = firstWait else { return }
        #expect(reason == "heartbeat missed", "phases: \(phases)")
    }
}
