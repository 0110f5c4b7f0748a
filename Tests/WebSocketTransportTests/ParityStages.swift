import Foundation
import LiveConnection
import LiveConnectionSimulator
import LiveConnectionTesting
import LiveTestServer
import TestScheduling
import WebSocketTransport

/// Virtual time: the simulated network and server, the manager on the simulator's executor.
struct SimulatedStage: ParityStage {
    let world: SimulationWorld
    let manager: ConnectionManager
    let monitor: InvariantMonitor

    func perform(_ action: SimulationAction) async throws { try await world.perform(action, on: manager) }
    func pause() async throws { try await world.clock.sleep(for: .milliseconds(10)) }
    var subscriptionLog: [String] { world.network.subscriptionLog }

    func verdict() -> [String] {
        monitor.finish()
        return monitor.violations.map(\.description)
    }

    /// Plays `scenario` in a fresh simulation (seed 0) and returns its outcome, judged by the
    /// invariant monitor of every simulated run.
    static func play(_ scenario: ParityScenario) throws -> ParityOutcome {
        try simulate(seed: 0, configuration: scenario.configuration, name: "parity \(scenario.name)") { world in
            let monitor = InvariantMonitor(
                configuration: scenario.configuration, network: world.network, clock: world.clock)
            let manager = world.makeManager(observer: { input, effects in monitor.observe(input, effects) })
            return try await world.run(manager) { manager in
                let log = EventLog()
                let (subscriber, events) = await manager.events(reportingTo: monitor)
                return try await withThrowingTaskGroup(of: ParityOutcome?.self) { group in
                    group.addTask {
                        for await event in events {
                            monitor.subscriber(subscriber, received: event)
                            await log.record(event)
                        }
                        return nil
                    }
                    let stage = SimulatedStage(world: world, manager: manager, monitor: monitor)
                    let outcome = try await scenario.play(on: stage, log: log)
                    group.cancelAll()
                    return outcome
                }
            }
        }
    }
}

/// Real time: ``LiveTestServer`` (what `livesim serve` runs) on a loopback port, the
/// manager over ``WebSocketTransport`` on `ContinuousClock`.
struct RealStage: ParityStage {
    let live: LiveTestServer
    let manager: ConnectionManager
    let monitor: InvariantMonitor
    /// The topics the scenario has subscribed to (and not unsubscribed from), in order.
    let topics = Locked<[String]>([])

    func perform(_ action: SimulationAction) async throws {
        switch action {
        case .connect: await manager.connect(to: RealManager.url(live))
        case .disconnect: await manager.disconnect()
        case .disconnectWith(let code, let reason): try await manager.disconnect(code: code, reason: reason)
        case .subscribe(let topic):
            topics.withLock { if !$0.contains(topic) { $0.append(topic) } }
            await manager.subscribe(topic)
        case .unsubscribe(let topic):
            topics.withLock { $0.removeAll { $0 == topic } }
            await manager.unsubscribe(topic)
        case .setForeground(let foreground): await manager.setForeground(foreground)
        case .send(let text): _ = try? await manager.send(text: text)
        case .ping(let timeout): _ = await manager.ping(timeout: timeout)
        case .broadcast(let topic, let text):
            try await serverHasReadSubscriptions()
            live.broadcast(topic: topic, text: text)
        case .closeConnection(let code, let reason): live.server.closeAll(code: code, reason: reason)
        case .resetConnection: live.server.resetAll()
        case .freeze: live.server.freeze()
        case .thaw: live.server.thaw()
        case .restartServer: live.restart()
        case .refuseConnections(let refuse): try live.server.refuseConnections(refuse)
        case .failHandshakes(let status): live.server.failHandshakes(status: status)
        case .hangHandshakes(let hang): live.server.hangHandshakes(hang)
        case .setLatency(let latency): live.server.setLatency(latency)
        case .setIdleTimeout(let timeout):
            // The timeout counts from the last frame the server read and discards what is
            // unread, so a subscribe still in the socket's buffer would be lost (CI under
            // AddressSanitizer saw "1:loans" missing); the simulated network has delivered it.
            if timeout != nil { try await serverHasReadSubscriptions() }
            live.server.setIdleTimeout(timeout)
        case .hostile, .deliverStale, .duplicateNextCallback, .delaySendCompletion, .path:
            throw ParityError.unsupported(action)
        }
    }

    func pause() async throws { try await ContinuousClock().sleep(for: .milliseconds(10)) }
    var subscriptionLog: [String] { live.subscriptionLog }

    /// The manager reports open once its subscribe frames are sent, and the simulated network
    /// delivers them before the scenario's next step; a real server may not have read them
    /// yet. A broadcast reaches only the connections subscribed when it is made (seen once in
    /// a debug run: "first" went to nobody, so message 1 never came), and an idle timeout
    /// discards what is unread. So while the manager is open, wait (up to 5 s) until the
    /// server's newest connection is subscribed to every topic the scenario subscribed to.
    /// Not while it is closed: then a broadcast is meant to be missed and replayed on resume.
    private func serverHasReadSubscriptions() async throws {
        guard case .open = await manager.phase else { return }
        let wanted = Set(topics.value)
        let end = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < end, !wanted.isSubset(of: live.topics(of: live.connectionCount)) {
            try await pause()
        }
    }

    func verdict() -> [String] {
        monitor.finish()
        return monitor.violations.map(\.description)
    }

    /// Real time's allowance on every time bound of the monitor: the suite starts every test
    /// at once on two cores, so timers can fire a second or more late.
    static let tolerance = Duration.seconds(3)

    /// Plays `scenario` against a fresh server and returns its outcome, judged by the
    /// simulator's invariant monitor on the real clock (as `livesim connect --check` does).
    static func play(_ scenario: ParityScenario) async throws -> ParityOutcome {
        let live = try LiveTestServer(configuration: .init())
        let outcome = Locked<ParityOutcome?>(nil)
        // The whole suite starts every test at once on two cores: a first handshake can
        // wait more than the transport's default 10 s for the pool, which would add an
        // ETIMEDOUT the simulated world never sees. The scenarios are not about timeouts.
        let start = ContinuousClock.now
        let now: @Sendable () -> VirtualClock.Instant = { .start + start.duration(to: .now) }
        let transport = ObservedTransport(
            WebSocketTransport(configuration: .init(connectTimeout: peerConnectTimeout)), now: now)
        let monitor = InvariantMonitor(
            configuration: scenario.configuration, world: transport, now: now, tolerance: Self.tolerance)
        try await RealManager.withManager(
            configuration: scenario.configuration, transport: transport, monitor: monitor,
            alongside: { await live.run() }
        ) { manager, log in
            outcome.set(
                try await scenario.play(on: RealStage(live: live, manager: manager, monitor: monitor), log: log))
        }
        guard let value = outcome.value else { throw ParityError.neverFinished(scenario.name) }
        return value
    }
}
