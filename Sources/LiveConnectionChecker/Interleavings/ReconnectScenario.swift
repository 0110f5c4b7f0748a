import Foundation
import LiveConnection
public import LiveConnectionRules
public import SimulationKernel

import typealias LiveConnection.Mutex

/// A small scenario of the real `ConnectionManager` for interleaving exploration: subscribe,
/// connect, the server closes the first connection after one virtual second, reconnect.
///
/// ```swift
/// let scenario = ReconnectScenario()
/// let report = InterleavingExplorer.explore(preemptionBound: 1) { scenario.passes(under: $0) }
/// print(report)   // "74 interleavings, all passed (depth-first, at most 1 preemptions, exhaustive; …)"
/// ```
///
/// An interleaving passes when the manager reached open twice and each connection carried a
/// subscribe for the topic, the second (after an open) starting with its resume frame.
/// The transport is scripted (no simulated network), so every choice point comes from the
/// shell itself: its run loop, receive loops, timers and the app's calls.
public struct ReconnectScenario: Sendable {
    /// The logic inside the manager (a broken variant shows what a failing interleaving looks like).
    public var variant: LogicVariant

    public init(variant: LogicVariant = .correct) { self.variant = variant }

    /// Whether the scenario passes under `strategy`.
    public func passes(under strategy: some SchedulingStrategy) -> Bool {
        guard let frames = run(under: strategy), frames.count == 2 else { return false }
        let subscribed = frames.allSatisfy { connection in
            connection.contains { $0.contains("\"subscribe\"") && $0.contains("\"alpha\"") }
        }
        return subscribed && frames[1].first?.contains("\"resume\"") == true
    }

    /// The frames each connection carried, or nil if the manager did not reach open twice.
    public func run(under strategy: some SchedulingStrategy) -> [[String]]? {
        let clock = VirtualClock()
        let record = ServerRecord()
        var configuration = ConnectionConfiguration()
        configuration.backoff = .table([.zero, .milliseconds(100)])
        let logic = variant.logic(for: configuration)
        let result = Simulation.run(strategy: strategy, clock: clock, until: .seconds(30), jobLimit: 200_000) {
            () async -> Int in
            let manager = ConnectionManager(
                configuration: configuration, transport: ScriptedTransport(record: record, clock: clock), clock: clock,
                random: Xoshiro256StarStar(seed: 1), logic: logic)
            return await withTaskGroup(of: Void.self) { group -> Int in
                group.addTask { await manager.run() }
                let events = await manager.events()
                await manager.subscribe("alpha")
                await manager.connect(to: Endpoint(url: URL(string: "wss://a.example/live")!))
                var opens = 0
                for await event in events {
                    guard case .phase(.open) = event else { continue }
                    opens += 1
                    if opens == 2 { break }
                }
                group.cancelAll()
                return opens
            }
        }
        guard case .finished(.success(2)) = result.outcome else { return nil }
        return record.snapshot
    }
}

/// What the scripted server saw, per connection, in order.
private final class ServerRecord: Sendable {
    private let frames = Mutex<[[String]]>([])

    func open() -> Int {
        frames.withLock {
            $0.append([])
            return $0.count - 1
        }
    }

    func record(_ frame: String, on connection: Int) { frames.withLock { $0[connection].append(frame) } }
    var snapshot: [[String]] { frames.withLock { $0 } }
}

/// The first connection is closed by the server (1000) one virtual second after it opens;
/// later connections stay quiet.
private struct ScriptedTransport: Transport {
    let record: ServerRecord
    let clock: VirtualClock

    func connect(to endpoint: Endpoint) async throws(TransportError) -> any TransportConnection {
        ScriptedConnection(index: record.open(), record: record, clock: clock)
    }
}

private struct ScriptedConnection: TransportConnection {
    let index: Int
    let record: ServerRecord
    let clock: VirtualClock

    func send(_ message: Message) async throws(TransportError) {
        record.record(String(decoding: message.data, as: UTF8.self), on: index)
    }

    func receive() async throws(TransportError) -> TransportEvent {
        do {
            try await clock.sleep(for: index == 0 ? .seconds(1) : .seconds(3600))
        } catch {
            throw .cancelled
        }
        return .closed(code: .normal, reason: "bye")
    }

    /// Never answered: the scenario ends (the second open) long before the first heartbeat.
    func ping(_ number: UInt64) async throws(TransportError) {}
    func close(code: CloseCode, reason: String) async {}
}
