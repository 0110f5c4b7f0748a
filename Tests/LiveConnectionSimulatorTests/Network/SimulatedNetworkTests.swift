import Foundation
import LiveConnection
import LiveConnectionSimulator
import Testing

import typealias LiveConnection.Mutex

/// The simulated network and server, driven directly (no manager) in virtual time.
@Suite("Simulated network")
struct SimulatedNetworkTests {
    static let endpoint = Scenario.endpoint(0)
    static let subscribeFeed = Message.text(#"{"type":"subscribe","topic":"feed"}"#)

    /// Runs `body` on a fresh network in virtual time and returns its value.
    static func simulate<T: Sendable>(
        _ body: @escaping @Sendable (SimulatedNetwork, VirtualClock) async throws -> T
    ) throws -> T {
        let clock = VirtualClock()
        let network = SimulatedNetwork(clock: clock, logCapacity: 3)
        let result = Simulation.run(clock: clock, until: .seconds(3600)) { try await body(network, clock) }
        return try result.get()
    }

    @Test("a broadcast reaches subscribers one latency later, sequence-numbered, in order")
    func broadcastWithLatency() throws {
        let (events, times) = try Self.simulate { network, clock in
            network.setLatency(.milliseconds(40))
            let connection = try await network.connect(to: Self.endpoint)
            #expect(clock.now == .start + .milliseconds(80), "a handshake is one round trip")
            try await connection.send(Self.subscribeFeed)
            network.broadcast(topic: "feed", text: "a")
            network.broadcast(topic: "other", text: "not for us")
            network.broadcast(topic: "feed", text: "b")
            var events: [TransportEvent] = []
            var times: [Duration] = []
            for _ in 0..<2 {
                events.append(try await connection.receive())
                times.append(clock.now.sinceStart)
            }
            return (events, times)
        }
        #expect(
            events == [
                .message(.text(#"{"seq":1,"topic":"feed","text":"a"}"#)),
                .message(.text(#"{"seq":3,"topic":"feed","text":"b"}"#)),
            ])
        #expect(times == [.milliseconds(120), .milliseconds(120)])
    }

    @Test("resume replays what a connection missed; a restart forgets subscriptions and keeps the log")
    func resumeAndRestart() throws {
        let (replayed, log, oldest) = try Self.simulate { network, _ in
            let first = try await network.connect(to: Self.endpoint)
            try await first.send(Self.subscribeFeed)
            network.broadcast(topic: "feed", text: "1")
            _ = try await first.receive()
            network.restart()
            await #expect(throws: TransportError.reset(errno: "ECONNRESET")) { try await first.receive() }
            // Nobody is subscribed after the restart: these are only logged.
            for text in ["2", "3", "4"] { network.broadcast(topic: "feed", text: text) }
            let second = try await network.connect(to: Self.endpoint)
            try await second.send(Self.subscribeFeed)
            try await second.send(.text(#"{"type":"resume","after":1}"#))
            var replayed: [TransportEvent] = []
            for _ in 0..<3 { replayed.append(try await second.receive()) }
            return (replayed, network.subscriptionLog, network.oldestRetainedSequence)
        }
        #expect(
            replayed.map { if case .message(let m) = $0 { m.description } else { "closed" } } == [
                #"text {"seq":2,"topic":"feed","text":"2"}"#,
                #"text {"seq":3,"topic":"feed","text":"3"}"#,
                #"text {"seq":4,"topic":"feed","text":"4"}"#,
            ])
        #expect(log == ["1:feed", "2:feed"])
        #expect(oldest == 2, "a log of three keeps 2, 3, 4")
    }

    @Test("resume sent before subscribing replays from the cursor when the subscribe arrives")
    func resumeFirst() throws {
        let sequences = try Self.simulate { network, _ in
            for text in ["1", "2", "3"] { network.broadcast(topic: "feed", text: text) }
            let connection = try await network.connect(to: Self.endpoint)
            try await connection.send(.text(#"{"type":"resume","after":1}"#))
            network.broadcast(topic: "feed", text: "4")  // between resume and subscribe: not lost
            try await connection.send(Self.subscribeFeed)
            network.broadcast(topic: "feed", text: "5")
            var sequences: [UInt64] = []
            for _ in 0..<4 {
                if case .message(let message) = try await connection.receive() {
                    sequences.append(SubscriptionProtocol.json.sequence(message) ?? 0)
                }
            }
            return sequences
        }
        // The log keeps three entries (2, 3, 4): all replayed after the cursor, then 5 live.
        #expect(sequences == [2, 3, 4, 5])
    }

    @Test("a frozen server answers no ping until it thaws, and the truth says since when it is dead")
    func freezeAndThaw() throws {
        let (pongAt, deadSince) = try Self.simulate { network, clock in
            let connection = try await network.connect(to: Self.endpoint)
            try await clock.sleep(for: .seconds(1))
            network.freeze()
            let deadSince = network.heldLinks().first?.deadSince
            return try await withThrowingTaskGroup(of: Duration?.self) { group in
                group.addTask {
                    try await connection.pingRoundTrip(1)
                    return clock.now.sinceStart
                }
                group.addTask {
                    try await clock.sleep(for: .seconds(30))
                    network.thaw()
                    return nil
                }
                var pongAt: Duration?
                for try await value in group { if let value { pongAt = value } }
                return (pongAt, deadSince)
            }
        }
        #expect(pongAt == .seconds(31))
        #expect(deadSince == .start + .seconds(1))
    }

    @Test("an idle timeout drops a quiet connection silently, counted from its last frame")
    func idleTimeout() throws {
        let (answered, deadSince) = try Self.simulate { network, clock in
            network.setIdleTimeout(.seconds(10))
            let connection = try await network.connect(to: Self.endpoint)
            try await clock.sleep(for: .seconds(5))
            try await connection.pingRoundTrip(1)  // traffic at 5 s: the drop moves to 15 s
            try await clock.sleep(for: .seconds(12))
            let deadSince = network.heldLinks().first?.deadSince
            let answered = try await withThrowingTaskGroup(of: Bool.self) { group in
                group.addTask {
                    try await connection.pingRoundTrip(2)
                    return true
                }
                group.addTask {
                    try await clock.sleep(for: .seconds(60))
                    return false
                }
                let first = try await group.next() ?? false
                group.cancelAll()
                return first
            }
            return (answered, deadSince)
        }
        #expect(!answered)
        #expect(deadSince == .start + .seconds(15))
    }

    @Test("refused, rejected and hung handshakes fail or wait as told")
    func handshakes() throws {
        let outcomes = try Self.simulate { network, clock in
            let outcomes = EventLog()
            network.refuseConnections(true)
            do { _ = try await network.connect(to: Self.endpoint) } catch { outcomes.record("\(error)") }
            network.refuseConnections(false)
            network.failHandshakes(status: 503)
            do { _ = try await network.connect(to: Self.endpoint) } catch { outcomes.record("\(error)") }
            network.failHandshakes(status: nil)
            network.hangHandshakes(true)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    _ = try await network.connect(to: Self.endpoint)
                    outcomes.record("opened at \(clock.now)")
                }
                try await clock.sleep(for: .seconds(7))
                network.hangHandshakes(false)
                try await group.waitForAll()
            }
            return outcomes.entries
        }
        #expect(outcomes == ["error ECONNREFUSED", "handshake 503", "opened at 7000ms"])
    }

    @Test("a reset fails the receive; a close frame ends it with its code; a send after either fails")
    func endings() throws {
        let (reset, closed, sendAfterReset) = try Self.simulate { network, _ in
            let first = try await network.connect(to: Self.endpoint)
            network.resetAll()
            var reset = ""
            do { _ = try await first.receive() } catch { reset = "\(error)" }
            var sendAfterReset = ""
            do { try await first.send(.text("x")) } catch { sendAfterReset = "\(error)" }
            let second = try await network.connect(to: Self.endpoint)
            network.closeAll(code: .forbidden, reason: "no")
            let closed = try await second.receive()
            return (reset, closed, sendAfterReset)
        }
        #expect(reset == "error ECONNRESET")
        #expect(sendAfterReset == "error ECONNRESET")
        #expect(closed == .closed(code: .forbidden, reason: "no"))
    }

    @Test("a duplicated frame arrives twice; a delayed send completes only after the next receive")
    func duplicateAndDelayedSend() throws {
        let order = try Self.simulate { network, _ in
            let connection = try await network.connect(to: Self.endpoint)
            try await connection.send(Self.subscribeFeed)
            network.duplicateNextFrame()
            network.broadcast(topic: "feed", text: "twice")
            let a = try await connection.receive()
            let b = try await connection.receive()
            #expect(a == b)
            network.delayNextSendCompletion()
            let order = EventLog()
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    try await connection.send(.text("command"))
                    order.record("send completed")
                }
                group.addTask {
                    _ = try await connection.receive()
                    order.record("received")
                }
                group.addTask {
                    await Task.yield()
                    network.broadcast(topic: "feed", text: "after")
                }
                try await group.waitForAll()
            }
            return order.entries
        }
        #expect(order == ["received", "send completed"])
    }
}

@Suite("Simulated network: late callbacks")
struct LateCallbackNetworkTests {
    @Test("an armed connection still returns a frame to the receive pending when the client closes it")
    func lateFrame() throws {
        let event = try SimulatedNetworkTests.simulate { network, _ in
            let connection = try await network.connect(to: SimulatedNetworkTests.endpoint)
            #expect(network.armLateCallback(.close))
            return try await withThrowingTaskGroup(of: TransportEvent?.self) { group in
                group.addTask { try await connection.receive() }
                group.addTask {
                    await Task.yield()
                    await connection.close(code: .normal, reason: "bye")
                    return nil
                }
                var event: TransportEvent?
                for try await value in group { if let value { event = value } }
                return event
            }
        }
        #expect(event == .closed(code: .internalError, reason: "late close"))
    }

    @Test("without arming, a receive pending at close fails")
    func noLateFrame() throws {
        let failed = try SimulatedNetworkTests.simulate { network, _ in
            let connection = try await network.connect(to: SimulatedNetworkTests.endpoint)
            return await withTaskGroup(of: Bool?.self) { group in
                group.addTask {
                    do { _ = try await connection.receive() } catch { return true }
                    return false
                }
                group.addTask {
                    await Task.yield()
                    await connection.close(code: .normal, reason: "bye")
                    return nil
                }
                var failed: Bool?
                for await value in group { if let value { failed = value } }
                return failed
            }
        }
        #expect(failed == true)
    }
}

@Suite("Simulated network: the transport seam")
struct SimulatedNetworkSeamTests {
    @Test(
        "each socket belongs to the generation the manager named through connect(to:generation:), and no header says so"
    )
    func generationThroughTheSeam() throws {
        let clock = VirtualClock()
        let network = SimulatedNetwork(clock: clock)
        let opened = Mutex<[Generation]>([])
        var configuration = ConnectionConfiguration()
        configuration.backoff = .table([.milliseconds(100)])
        let result = Simulation.run(clock: clock, until: .seconds(10)) {
            let manager = ConnectionManager(
                configuration: configuration, transport: network, clock: clock, random: Xoshiro256StarStar(seed: 1),
                observer: { _, effects in
                    for case .openConnection(let g, _) in effects { opened.withLock { $0.append(g) } }
                })
            await withDiscardingTaskGroup { group in
                group.addTask { await manager.run() }
                await manager.connect(to: SimulatedNetworkTests.endpoint)
                for _ in 0..<2 {
                    try? await clock.sleep(for: .seconds(2))
                    network.resetAll()
                }
                try? await clock.sleep(for: .seconds(2))
                group.cancelAll()
            }
        }
        #expect(result.bodyFinished)
        let links = network.allLinks()
        let generations = opened.withLock { $0 }
        #expect(generations.count == 3, "\(generations)")
        #expect(links.map(\.generation) == generations.map { Optional($0) })
        #expect(links.allSatisfy { $0.endpoint.headers.isEmpty }, "\(links.map(\.endpoint.headers))")
    }
}

extension TransportConnection {
    /// Pings with `number` and reads until its pong comes back (the seam's ping returns once
    /// written; its pong arrives through `receive()`).
    fileprivate func pingRoundTrip(_ number: UInt64) async throws(TransportError) {
        try await ping(number)
        while true {
            if case .pong(let answered) = try await receive(), answered >= number { return }
        }
    }
}
