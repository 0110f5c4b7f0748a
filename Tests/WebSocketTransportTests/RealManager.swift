import Foundation
import LiveConnection
import LiveConnectionSimulator
import LiveTestServer
import TestScheduling
import Testing

import typealias LiveConnection.Mutex

@testable import WebSocketTransport

/// Collects a manager's events so a test can wait for one and then read the whole log.
actor EventLog {
    private(set) var events: [ConnectionEvent] = []
    /// In a lock rather than on the actor, so a cancelled wait leaves at once from its
    /// cancellation handler, which does not run on the actor.
    private let waiters = Mutex<[Waiter]>([])
    private var nextWaiter = 0

    private struct Waiter: Sendable {
        let id: Int
        let from: Int
        let predicate: @Sendable (ConnectionEvent) -> Bool
        let continuation: CheckedContinuation<Void, Never>
    }

    func record(_ event: ConnectionEvent) {
        events.append(event)
        let index = events.count - 1
        let due = waiters.withLock { waiters -> [Waiter] in
            var due: [Waiter] = []
            waiters.removeAll { waiter in
                guard index >= waiter.from, waiter.predicate(event) else { return false }
                due.append(waiter)
                return true
            }
            return due
        }
        for waiter in due { waiter.continuation.resume() }
    }

    /// Waits for an event recorded at or after position `from` that matches, or until the
    /// task is cancelled: ``RealManager/withManager`` cancels its body at its deadline, and a
    /// test whose event never comes must then fail on what it expects, not hang the run.
    func wait(from: Int = 0, for predicate: @escaping @Sendable (ConnectionEvent) -> Bool) async {
        if events[min(from, events.count)...].contains(where: predicate) { return }
        let id = nextWaiter
        nextWaiter += 1
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                waiters.withLock {
                    $0.append(Waiter(id: id, from: from, predicate: predicate, continuation: continuation))
                }
                // Cancelled before the waiter was stored: the handler found nothing to end.
                if Task.isCancelled { leave(id) }
            }
        } onCancel: {
            leave(id)
        }
    }

    /// Ends waiter `id`'s wait, if it is still waiting (the lock makes one resume at most).
    private nonisolated func leave(_ id: Int) {
        let gone = waiters.withLock { waiters -> Waiter? in
            guard let index = waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return waiters.remove(at: index)
        }
        gone?.continuation.resume()
    }

    var count: Int { events.count }

    var phases: [Phase] {
        events.compactMap { if case .phase(let phase) = $0 { phase } else { nil } }
    }

    var messages: [(Message, UInt64?)] {
        events.compactMap { if case .message(let message, let sequence) = $0 { (message, sequence) } else { nil } }
    }
}

/// A manager over ``WebSocketTransport`` on the real clock, run for the length of a test
/// (seed 000's scenarios against ``LiveTestServer`` are in ``ParityTests``, written once
/// for both worlds).
enum RealManager {
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

    /// The live contract's path on `server`.
    static func url(_ server: LiveTestServer) -> URL { URL(string: "ws://127.0.0.1:\(server.port)/live")! }

    /// Runs a manager on the real transport with `body` (and `alongside`, a server, if
    /// given), then cancels everything; returns every event seen. The scenario gets two
    /// minutes. `configuration` replaces the one `quietHeartbeat` picks; `credentials` is the
    /// manager's credentials provider. With `monitor`, the
    /// simulator's invariants judge the run on the real clock (`livesim connect --check`'s
    /// wiring): the observer, the event stream and a check every 100 ms.
    @discardableResult
    static func withManager(
        quietHeartbeat: Bool = false, configuration: ConnectionConfiguration? = nil,
        transport: any Transport = WebSocketTransport(), monitor: InvariantMonitor? = nil,
        credentials: ConnectionManager.CredentialsProvider? = nil, alongside: (@Sendable () async -> Void)? = nil,
        _ body: @escaping @Sendable (ConnectionManager, EventLog) async throws -> Void
    ) async throws -> EventLog {
        var observer: ConnectionManager.Observer?
        if let monitor { observer = { input, effects in monitor.observe(input, effects) } }
        let manager = ConnectionManager(
            configuration: configuration ?? Self.configuration(quietHeartbeat: quietHeartbeat), transport: transport,
            credentials: credentials, observer: observer)
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
            if let monitor {
                let (subscriber, events) = await manager.events(reportingTo: monitor)
                group.addTask {
                    for await event in events {
                        monitor.subscriber(subscriber, received: event)
                        await log.record(event)
                    }
                    return false
                }
                group.addTask {
                    while (try? await ContinuousClock().sleep(for: .milliseconds(100))) != nil { monitor.check() }
                    return false
                }
            } else {
                let events = await manager.events()
                group.addTask {
                    for await event in events { await log.record(event) }
                    return false
                }
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
}
