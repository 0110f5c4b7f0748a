import Foundation
import LiveConnectionSimulator
import Testing

@testable import LiveConnection

/// The shell's promises, in virtual time against the in-memory server.
@Suite("Connection manager")
struct ConnectionManagerTests {
    static let configuration = Seed000ScenarioTests.testConfiguration()

    @Test("a command with no connection fails 'not connected' and nothing is sent")
    func sendWhileDisconnected() {
        let server = InMemoryServer()
        let outcome = Locked<CommandError??>(nil)
        _ = ManagerHarness.simulate(configuration: Self.configuration, server: server) { harness in
            do throws(CommandError) { try await harness.manager.send(text: "buy") } catch { outcome.set(error) }
        }
        #expect(outcome.value == .notConnected)
        #expect(server.received.isEmpty)
    }

    @Test("a command on an open connection is sent exactly once")
    func sendWhileOpen() {
        let server = InMemoryServer()
        let failed = Locked(false)
        let run = ManagerHarness.simulate(configuration: Self.configuration, server: server) { harness in
            var events = await harness.manager.events().makeAsyncIterator()
            await harness.manager.connect(to: ManagerHarness.url)
            await harness.waitFor(&events) { $0.isOpen }
            do { try await harness.manager.send(text: "buy") } catch { failed.set(true) }
        }
        #expect(run.finished)
        #expect(!failed.value)
        #expect(server.received == ["1:buy"])
    }

    @Test("a command in flight when the connection drops fails 'outcome unknown' and is never resent")
    func sendInFlightAtDrop() {
        let server = InMemoryServer()
        let outcome = Locked<CommandError??>(nil)
        let run = ManagerHarness.simulate(configuration: Self.configuration, server: server) { harness in
            var events = await harness.manager.events().makeAsyncIterator()
            await harness.manager.connect(to: ManagerHarness.url)
            await harness.waitFor(&events) { $0.isOpen }
            harness.server.stallNextSend()
            await withDiscardingTaskGroup { group in
                group.addTask {
                    do throws(CommandError) { try await harness.manager.send(text: "buy") } catch { outcome.set(error) }
                }
                try? await harness.clock.sleep(for: .milliseconds(10))
                harness.server.resetAll()
            }
            await harness.waitFor(&events) { $0.isOpen }
            try? await harness.clock.sleep(for: .seconds(5))
        }
        #expect(run.finished)
        #expect(outcome.value == .outcomeUnknown)
        #expect(!server.received.contains { $0.hasSuffix(":buy") }, "resent: \(server.received)")
        #expect(server.connectionCount == 2)
    }

    @Test("close 4001 refreshes credentials once and reconnects with them")
    func tokenRefresh() {
        let server = InMemoryServer()
        let refreshes = Locked(0)
        let clock = VirtualClock()
        let result = Simulation.run(clock: clock, until: .seconds(60)) {
            let manager = ConnectionManager(
                configuration: Self.configuration, transport: server.transport, clock: clock,
                random: Xoshiro256StarStar(seed: 1),
                credentials: {
                    let count = refreshes.update {
                        $0 += 1; return $0
                    }
                    return [Endpoint.Header("Authorization", "Bearer fresh-\(count)")]
                })
            await withDiscardingTaskGroup { group in
                group.addTask { await manager.run() }
                var events = await manager.events().makeAsyncIterator()
                await manager.connect(
                    to: Endpoint(url: ManagerHarness.url, headers: [.init("Authorization", "Bearer old")]))
                while let event = await events.next(), !event.isOpen {}
                server.closeAll(code: .tokenExpired, reason: "token expired")
                while let event = await events.next(), !event.isOpen {}
                group.cancelAll()
            }
        }
        #expect(result.bodyFinished)
        #expect(refreshes.value == 1)
        #expect(server.handshakeHeaders.map { $0.map(\.value) } == [["Bearer old"], ["Bearer fresh-1"]])
    }

    @Test("backgrounding closes the socket but keeps wanting it; the foreground reconnects at once")
    func backgroundAndForeground() {
        let server = InMemoryServer()
        let run = ManagerHarness.simulate(configuration: Self.configuration, server: server) { harness in
            var events = await harness.manager.events().makeAsyncIterator()
            await harness.manager.connect(to: ManagerHarness.url)
            await harness.waitFor(&events) { $0.isOpen }
            await harness.manager.setForeground(false)
            await harness.waitFor(&events) { $0 == .phase(.backgrounded) }
            try? await harness.clock.sleep(for: .seconds(30))
            #expect(harness.server.openConnections == 0)
            await harness.manager.setForeground(true)
            await harness.waitFor(&events) { $0.isOpen }
        }
        #expect(run.finished)
        #expect(server.connectionCount == 2)
        // Reconnected in the same virtual instant the app came back.
        let times = run.log.filter { $0.contains(" phase open attempt=") }.map { $0.split(separator: " ")[0] }
        #expect(times == ["0ms", "30000ms"], "log: \(run.log)")
    }

    @Test("resume drops replayed duplicates and reports a gap, delivering each message once in order")
    func resumeDeliversOnceInOrder() {
        let server = InMemoryServer()
        let delivered = LockedLog()
        let run = ManagerHarness.simulate(configuration: Self.configuration, server: server) { harness in
            var events = await harness.manager.events().makeAsyncIterator()
            await harness.manager.subscribe("loans")
            await harness.manager.connect(to: ManagerHarness.url)
            await harness.waitFor(&events) { $0.isOpen }
            for sequence in [1, 2, 2, 3, 1, 6] { harness.server.broadcast(#"{"seq":\#(sequence)}"#) }
            var seen = 0
            while seen < 5, let event = await events.next() {
                switch event {
                case .message(_, let sequence): delivered.append("message \(sequence ?? 0)"); seen += 1
                case .gap(let expected, let received): delivered.append("gap \(expected)..<\(received)"); seen += 1
                case .phase: break
                }
            }
            // The next connection asks to resume after the last sequence delivered.
            harness.server.resetAll()
            await harness.waitFor(&events) { $0.isOpen }
        }
        #expect(run.finished)
        #expect(delivered.lines == ["message 1", "message 2", "message 3", "gap 4..<6", "message 6"])
        #expect(
            server.received.suffix(2) == [
                #"2:{"type":"resume","after":6}"#, #"2:{"type":"subscribe","topic":"loans"}"#,
            ])
    }

    @Test("a new subscriber first receives the current phase; messages are never replayed to it")
    func newSubscriberSeesPhaseNotMessages() {
        let firstOfLate = Locked<ConnectionEvent??>(nil)
        _ = ManagerHarness.simulate(configuration: Self.configuration) { harness in
            var events = await harness.manager.events().makeAsyncIterator()
            await harness.manager.connect(to: ManagerHarness.url)
            await harness.waitFor(&events) { $0.isOpen }
            harness.server.broadcast("hello")
            await harness.waitFor(&events) { if case .message = $0 { true } else { false } }
            var late = await harness.manager.events().makeAsyncIterator()
            let first = await late.next()
            firstOfLate.set(first)
        }
        #expect(firstOfLate.value == .phase(.open(attempt: 1)))
    }

    @Test("events decode as Decodable values, skipping other shapes")
    func decoding() async {
        struct Loan: Decodable, Sendable, Equatable { var seq: Int; var amount: Int }
        let (stream, continuation) = AsyncStream.makeStream(of: ConnectionEvent.self)
        continuation.yield(.phase(.open(attempt: 1)))
        continuation.yield(.message(.text(#"{"seq":1,"amount":5}"#), sequence: 1))
        continuation.yield(.message(.text("not json"), sequence: nil))
        continuation.yield(.message(.binary(Data(#"{"seq":2,"amount":7}"#.utf8)), sequence: 2))
        continuation.finish()
        var loans: [Loan] = []
        for await loan in stream.decoded(Loan.self) { loans.append(loan) }
        #expect(loans == [Loan(seq: 1, amount: 5), Loan(seq: 2, amount: 7)])
    }
}

@Suite("Connection manager lifetime")
struct ConnectionManagerLifetimeTests {
    @Test("cancelling run() closes the connection, reports stopped, ends every stream; later streams end at once")
    func cancellingRunEndsEverything() {
        let server = InMemoryServer()
        let ended = Locked(false)
        let lateEvents = Locked<[ConnectionEvent]>([])
        let clock = VirtualClock()
        let result = Simulation.run(clock: clock, until: .seconds(60)) {
            let manager = ConnectionManager(
                configuration: Seed000ScenarioTests.testConfiguration(), transport: server.transport, clock: clock,
                random: Xoshiro256StarStar(seed: 1))
            var events = await manager.events().makeAsyncIterator()
            await withDiscardingTaskGroup { group in
                group.addTask { await manager.run() }
                await manager.connect(to: ManagerHarness.url)
                while let event = await events.next(), !event.isOpen {}
                group.cancelAll()
            }
            while await events.next() != nil {}
            ended.set(true)
            var collected: [ConnectionEvent] = []
            for await event in await manager.events() { collected.append(event) }
            lateEvents.set(collected)
        }
        #expect(result.bodyFinished)
        #expect(ended.value)
        #expect(lateEvents.value == [.phase(.stopped(reason: "disconnected"))])
        #expect(server.openConnections == 0)
    }
}
