import Foundation
import LiveConnection
import LiveConnectionChecker
import LiveConnectionSimulator
import Synchronization
import Testing

/// What the scripted server saw, per connection, in order.
private final class ServerRecord: Sendable {
    private let frames = Mutex<[[String]]>([])

    func open() -> Int {
        frames.withLock {
            $0.append([]); return $0.count - 1
        }
    }
    func record(_ frame: String, on connection: Int) { frames.withLock { $0[connection].append(frame) } }
    var snapshot: [[String]] { frames.withLock { $0 } }
}

/// A transport whose first connection is closed by the server (1000) one virtual second
/// after it opens; later connections stay quiet.
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

    func ping() async throws(TransportError) {}
    func close(code: CloseCode, reason: String) async {}
}

/// Subscribe, connect, get closed once, reconnect: runs the real `ConnectionManager` on
/// the simulation executor under `strategy`; returns the frames of each connection.
private func reconnectScenario(strategy: some SchedulingStrategy) -> [[String]]? {
    let clock = VirtualClock()
    let record = ServerRecord()
    var configuration = ConnectionConfiguration()
    configuration.backoff = .table([.zero, .milliseconds(100)])
    let result = Simulation.run(strategy: strategy, clock: clock, until: .seconds(30), jobLimit: 200_000) {
        () async -> Int in
        let manager = ConnectionManager(
            configuration: configuration, transport: ScriptedTransport(record: record, clock: clock), clock: clock,
            random: Xoshiro256StarStar(seed: 1))
        return await withTaskGroup(of: Void.self) { group -> Int in
            group.addTask { await manager.run() }
            let events = await manager.events()
            await manager.subscribe("alpha")
            guard let url = URL(string: "wss://a.example/live") else { return 0 }
            await manager.connect(to: Endpoint(url: url))
            var opens = 0
            for await event in events where event == .phase(.open) {
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

@Suite("Schedule exploration of the connection manager")
struct ManagerScheduleTests {
    @Test("every schedule within one preemption resubscribes (and resumes) on both connections before the second open")
    func reconnectResubscribesInEverySchedule() {
        // About 65 choice points a run: one preemption is exhaustive in a few hundred
        // schedules; two would be tens of thousands (run them with a bigger budget).
        let report = ScheduleExplorer.explore(preemptionBound: 1, maxSchedules: 5_000) { strategy in
            guard let frames = reconnectScenario(strategy: strategy) else { return false }
            // Two connections, each subscribed to "alpha"; the second (after an open) resumes first.
            let subscribed = frames.allSatisfy { connection in
                connection.contains { $0.contains("\"subscribe\"") && $0.contains("\"alpha\"") }
            }
            return frames.count == 2 && subscribed && frames[1].first?.contains("\"resume\"") == true
        }
        #expect(report.passed, "\(report)")
        #expect(report.schedules > 1, "\(report)")
        #expect(report.deepest > 0)
        #expect(report.exhaustive, "\(report)")
    }
}
