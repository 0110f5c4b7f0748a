import Foundation
import LiveConnection
import LiveTestServer
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

/// Seed 000's measurements against a real server: the manager over ``WebSocketTransport``
/// against ``LiveTestServer`` (what `livesim serve` runs), driven through its Swift API.
@Suite("Manager over the real transport against the live test server", .timeLimit(.minutes(2)))
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

    static func isOpen(_ event: ConnectionEvent) -> Bool { if case .phase(.open) = event { true } else { false } }

    static func isWaiting(_ event: ConnectionEvent) -> Bool {
        if case .phase(.waiting) = event { true } else { false }
    }

    static func isMessage(_ event: ConnectionEvent) -> Bool {
        if case .message = event { true } else { false }
    }

    static func url(_ server: LiveTestServer) -> URL { URL(string: "ws://127.0.0.1:\(server.port)/live")! }

    /// Runs a manager on the real transport with `body` (and `alongside`, a server, if
    /// given), then cancels everything; returns every event seen. The scenario gets two minutes.
    @discardableResult
    static func withManager(
        quietHeartbeat: Bool = false, transport: WebSocketTransport = WebSocketTransport(),
        alongside: (@Sendable () async -> Void)? = nil,
        _ body: @escaping @Sendable (ConnectionManager, EventLog) async throws -> Void
    ) async throws -> EventLog {
        let manager = ConnectionManager(
            configuration: configuration(quietHeartbeat: quietHeartbeat), transport: transport)
        let log = EventLog()
        try await withThrowingTaskGroup(of: Bool.self) { group in
            if let alongside {
                group.addTask {
                    await alongside()
                    return false
                }
            }
            group.addTask {
                await manager.run()
                return false
            }
            let events = await manager.events()
            group.addTask {
                for await event in events { await log.record(event) }
                return false
            }
            group.addTask {
                try await ContinuousClock().sleep(for: .seconds(120))
                return true
            }
            group.addTask {
                try await body(manager, log)
                return false
            }
            // Server, manager and event pump run until cancelled, so the first child to end is
            // the body (false) or, if the scenario is stuck, the time limit (true).
            let timedOut = try await group.next() ?? false
            if timedOut { Issue.record("the scenario did not finish; events: \(await log.events)") }
            group.cancelAll()
        }
        return log
    }

    /// The same against an external peer process (it runs by itself).
    @discardableResult
    static func withManager(
        server: PeerServer, quietHeartbeat: Bool = false, transport: WebSocketTransport = WebSocketTransport(),
        _ body: @escaping @Sendable (ConnectionManager, EventLog) async throws -> Void
    ) async throws -> EventLog {
        try await withManager(quietHeartbeat: quietHeartbeat, transport: transport, body)
    }

    /// The same with a ``LiveTestServer`` on a free loopback port, run alongside.
    @discardableResult
    static func withLiveServer(
        quietHeartbeat: Bool = false,
        _ body: @escaping @Sendable (ConnectionManager, LiveTestServer, EventLog) async throws -> Void
    ) async throws -> EventLog {
        let server = try LiveTestServer(configuration: .init())
        return try await withManager(quietHeartbeat: quietHeartbeat, alongside: { await server.run() }) {
            manager, log in try await body(manager, server, log)
        }
    }

    @Test("reconnects after resets and resubscribes on every new connection; resume replays what was missed")
    func resetsAndResume() async throws {
        let log = try await Self.withLiveServer(quietHeartbeat: true) { manager, server, log in
            await manager.subscribe("loans")
            await manager.connect(to: Self.url(server))
            await log.wait(for: Self.isOpen)
            server.broadcast(topic: "loans", text: "first")
            await log.wait(for: Self.isMessage)

            // A reset: the manager reports it as seed 000 measured, reconnects, resubscribes.
            var mark = await log.count
            server.server.resetAll()
            await log.wait(from: mark, for: Self.isOpen)
            mark = await log.count
            server.broadcast(topic: "loans", text: "second")
            await log.wait(from: mark, for: Self.isMessage)

            // A message published while the connection is down arrives once, by resume.
            mark = await log.count
            server.server.resetAll()
            server.broadcast(topic: "loans", text: "missed")
            await log.wait(from: mark, for: Self.isOpen)
            await log.wait(from: mark) { if case .message(_, 3) = $0 { true } else { false } }
        }
        let delivered = await log.messages.map { message, sequence in
            let text = if case .text(let text) = message { text } else { "" }
            return "\(sequence ?? 0) \(text)"
        }
        #expect(
            delivered == [
                #"1 {"seq":1,"topic":"loans","text":"first"}"#,
                #"2 {"seq":2,"topic":"loans","text":"second"}"#,
                #"3 {"seq":3,"topic":"loans","text":"missed"}"#,
            ])
        let reasons = await log.phases.compactMap { if case .waiting(let reason, _, _) = $0 { reason } else { nil } }
        #expect(reasons == ["error ECONNRESET", "error ECONNRESET"])
        #expect(await log.phases.filter(\.isOpen).count == 3)
    }

    @Test("a frozen server is declared dead by the heartbeat; thawed, the manager reopens and resubscribes")
    func frozenAndThawed() async throws {
        let marks = Locked<Int>(0)
        let recorded = try await Self.withLiveServer { manager, server, log in
            await manager.subscribe("loans")
            await manager.connect(to: Self.url(server))
            await log.wait(for: Self.isOpen)
            let mark = await log.count
            marks.set(mark)
            server.server.freeze()
            await log.wait(from: mark, for: Self.isWaiting)
            server.server.thaw()
            await log.wait(from: mark, for: Self.isOpen)
            // Resubscribed: a message on the topic reaches us on the new connection.
            let afterThaw = await log.count
            server.broadcast(topic: "loans", text: "thawed")
            await log.wait(from: afterThaw, for: Self.isMessage)
        }
        let events = await recorded.events
        // The first wait after the freeze is the heartbeat's verdict (an earlier connect
        // timeout on a loaded machine would be a different story, before the freeze).
        let firstWait = events[marks.value...].first { Self.isWaiting($0) }
        guard case .phase(.waiting(let reason, _, _)) = firstWait else {
            Issue.record("no wait after the freeze: \(events)")
            return
        }
        #expect(reason == "heartbeat missed", "events: \(events)")
    }
}

/// A value shared between a test's tasks.
final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value { lock.withLock { stored } }
    func set(_ value: Value) { lock.withLock { stored = value } }
}
