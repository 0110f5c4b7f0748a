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
}
