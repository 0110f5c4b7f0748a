import Foundation
import LiveConnectionSimulator
import Testing

@testable import LiveConnection

/// `manager.ping(timeout:)` in virtual time against the in-memory server: each call
/// returns exactly one outcome, including when the connection dies while it waits.
@Suite("Connection manager: app pings")
struct PingManagerTests {
    static let configuration = Seed000ScenarioTests.testConfiguration()  // P = T = 500 ms

    @Test("not connected, alive, no answer from a frozen server, then 'connection ended' when the heartbeat kills it")
    func outcomes() {
        let server = InMemoryServer()
        let outcomes = Locked<[PingOutcome]>([])
        let run = ManagerHarness.simulate(configuration: Self.configuration, server: server) { harness in
            let manager = harness.manager
            var events = await manager.events().makeAsyncIterator()
            var seen: [PingOutcome] = [await manager.ping()]
            await manager.connect(to: ManagerHarness.url)
            await harness.waitFor(&events) { $0.isOpen }
            seen.append(await manager.ping())
            server.freeze()
            seen.append(await manager.ping(timeout: .milliseconds(100)))
            // Longer than P + T: the heartbeat declares the peer dead first.
            seen.append(await manager.ping(timeout: .seconds(30)))
            outcomes.set(seen)
        }
        #expect(run.finished, "\(run.log)")
        #expect(outcomes.value == [.failed(.notConnected), .alive, .noAnswer, .failed(.connectionEnded)])
        #expect(
            run.end < VirtualClock.Instant(nanosecondsSinceStart: 2_000_000_000),
            "answered at the teardown, not at the 30 s deadline")
    }

    @Test(
        "timeouts that are not above zero or are over an hour are refused, and nothing is sent",
        arguments: [
            Duration.zero, .milliseconds(-5), .seconds(3601),
        ])
    func invalidTimeouts(timeout: Duration) {
        let server = InMemoryServer()
        let outcome = Locked<PingOutcome?>(nil)
        let run = ManagerHarness.simulate(configuration: Self.configuration, server: server) { harness in
            var events = await harness.manager.events().makeAsyncIterator()
            await harness.manager.connect(to: ManagerHarness.url)
            await harness.waitFor(&events) { $0.isOpen }
            outcome.set(await harness.manager.ping(timeout: timeout))
        }
        #expect(run.finished)
        #expect(outcome.value == .failed(.invalidTimeout(timeout)))
    }

    @Test("a pong to a later heartbeat ping answers the app ping sent before it (pongs answer in order)")
    func pongAnswersEarlierPings() {
        let server = InMemoryServer()
        let outcome = Locked<PingOutcome?>(nil)
        let held = Locked<[UInt64]>([])
        let run = ManagerHarness.simulate(configuration: Self.configuration, server: server) { harness in
            let manager = harness.manager
            var events = await manager.events().makeAsyncIterator()
            await manager.connect(to: ManagerHarness.url)
            await harness.waitFor(&events) { $0.isOpen }
            server.holdPongs()
            await withDiscardingTaskGroup { group in
                group.addTask { outcome.set(await manager.ping(timeout: .seconds(2))) }
                // The heartbeat pings at P = 500 ms; its pong deadline is at 1 s.
                try? await harness.clock.sleep(for: .milliseconds(700))
                held.set(server.heldPings)
                server.answerLatestPings()  // only the heartbeat's pong: the peer skipped the app ping's
            }
            try? await harness.clock.sleep(for: .milliseconds(600))
        }
        #expect(run.finished, "\(run.log)")
        #expect(held.value == [1, 2], "the app ping, then the heartbeat's")
        #expect(outcome.value == .alive, "answered by the later pong, not left to its 2 s timeout")
        #expect(run.end < VirtualClock.Instant(nanosecondsSinceStart: 1_500_000_000))
        #expect(server.connectionCount == 1, "the heartbeat was answered too: no missed pong, no reconnect")
    }

    @Test("a pong carrying a number the manager never sent changes nothing")
    func unknownPongIgnored() {
        let server = InMemoryServer()
        let outcomes = Locked<[PingOutcome]>([])
        let run = ManagerHarness.simulate(configuration: Self.configuration, server: server) { harness in
            let manager = harness.manager
            var events = await manager.events().makeAsyncIterator()
            await manager.connect(to: ManagerHarness.url)
            await harness.waitFor(&events) { $0.isOpen }
            server.holdPongs()
            await withDiscardingTaskGroup { group in
                group.addTask {
                    let outcome = await manager.ping(timeout: .milliseconds(300))
                    outcomes.update { $0.append(outcome) }
                }
                try? await harness.clock.sleep(for: .milliseconds(100))
                server.sendPong(99)  // unsolicited: ours is number 1
            }
            let afterwards = await manager.ping(timeout: .milliseconds(100))
            outcomes.update { $0.append(afterwards) }
        }
        #expect(run.finished, "\(run.log)")
        #expect(outcomes.value == [.noAnswer, .noAnswer], "the stray pong answered neither ping")
        #expect(server.heldPings == [1, 2])
        #expect(server.connectionCount == 1)
    }
}

/// The shell's record of a generation's pings: which inputs a pong stands for.
@Suite("Sent pings")
struct SentPingsTests {
    @Test("a pong answers its ping and every one sent before it, oldest first, once")
    func inOrder() {
        var pings = SentPings()
        let app = pings.record(.app(PingID(7)))
        let heartbeat = pings.record(.heartbeat)
        let later = pings.record(.heartbeat)
        #expect([app, heartbeat, later] == [1, 2, 3])
        #expect(pings.answer(upTo: heartbeat) == [.app(PingID(7)), .heartbeat])
        #expect(pings.answer(upTo: app) == [], "answered already")
        #expect(pings.answer(upTo: later) == [.heartbeat])
    }

    @Test("a pong for a number never sent, or for a ping whose write failed, answers nothing")
    func unknown() {
        var pings = SentPings()
        let first = pings.record(.heartbeat)
        let failed = pings.record(.app(PingID(1)))
        pings.forget(failed)
        #expect(pings.answer(upTo: 99) == [])
        #expect(pings.answer(upTo: failed) == [])
        #expect(pings.answer(upTo: first) == [.heartbeat])
    }
}
