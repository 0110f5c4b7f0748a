import Foundation
import LiveConnectionSimulator

import typealias LiveConnection.Mutex

@testable import LiveConnection

/// Runs one `ConnectionManager` against an `InMemoryServer` in virtual time, and keeps a
/// log of what the app saw, stamped with virtual milliseconds.
///
/// ```swift
/// let log = ManagerHarness.simulate(configuration: configuration) { harness in
///     await harness.manager.connect(to: ManagerHarness.url)
///     await harness.waitFor { $0.isOpen }
/// }
/// ```
struct ManagerHarness: Sendable {
    static let url = URL(string: "ws://server.test/live")!

    let manager: ConnectionManager
    let server: InMemoryServer
    let clock: VirtualClock
    let recorder: Recorder

    final class Recorder: Sendable {
        private let storage = LockedLog()
        func append(_ line: String) { storage.append(line) }
        var log: [String] { storage.lines }
    }

    /// Reads events until one satisfies `predicate`, logging each with its virtual time.
    /// Returns false if the stream ended first.
    @discardableResult
    func waitFor(
        _ events: inout ConnectionEvents.Iterator, _ predicate: (ConnectionEvent) -> Bool
    ) async -> Bool {
        while let event = await events.next() {
            recorder.append("\(clock.now) \(event)")
            if predicate(event) { return true }
        }
        return false
    }

    /// Runs `script` with a fresh manager (its `run()` in the same task group), then
    /// cancels the manager and returns the log and the final virtual time.
    static func simulate(
        seed: UInt64 = 0,
        configuration: ConnectionConfiguration,
        server: InMemoryServer = InMemoryServer(),
        limit: Duration = .seconds(600),
        script: @escaping @Sendable (ManagerHarness) async -> Void
    ) -> (log: [String], end: VirtualClock.Instant, finished: Bool) {
        let clock = VirtualClock()
        let recorder = Recorder()
        let result = Simulation.run(strategy: RandomScheduling(seed: seed), clock: clock, until: limit) {
            let manager = ConnectionManager(
                configuration: configuration, transport: server.transport, clock: clock,
                random: Xoshiro256StarStar(seed: seed))
            let harness = ManagerHarness(manager: manager, server: server, clock: clock, recorder: recorder)
            await withDiscardingTaskGroup { group in
                group.addTask { await manager.run() }
                await script(harness)
                group.cancelAll()
            }
        }
        return (recorder.log, result.finalTime, result.bodyFinished && !result.timeLimitReached)
    }
}

final class LockedLog: Sendable {
    private let storage = Mutex<[String]>([])
    func append(_ line: String) { storage.withLock { $0.append(line) } }
    var lines: [String] { storage.withLock { $0 } }
}

/// A value shared between a simulated body and the test that inspects it afterwards.
final class Locked<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>
    init(_ value: Value) { storage = Mutex(value) }
    var value: Value { storage.withLock { $0 } }
    func set(_ value: Value) { storage.withLock { $0 = value } }
    @discardableResult
    func update<R: Sendable>(_ body: (inout Value) -> R) -> R { storage.withLock { body(&$0) } }
}

extension ConnectionEvent {
    /// Whether this is the open phase, whatever attempt opened the connection.
    var isOpen: Bool {
        if case .phase(let phase) = self { phase.isOpen } else { false }
    }
}
