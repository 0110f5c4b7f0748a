import Foundation
import LiveConnectionSimulator
import Testing

@testable import LiveConnection

/// `manager.setPathViable(_:)` in virtual time against the in-memory server: no handshake
/// while the app says there is no path, an immediate one when it says the path is back.
@Suite("Connection manager: network path")
struct PathManagerTests {
    static let configuration = Seed000ScenarioTests.testConfiguration()  // P = T = 500 ms

    @Test("no handshake while the path is unviable, however long; open at once when it returns")
    func quietThenImmediate() {
        let server = InMemoryServer()
        let seen = Locked<(handshakesWhileOffline: Int, returnedAt: Duration, openAt: Duration, phase: Phase?)>(
            (0, .zero, .zero, nil))
        let run = ManagerHarness.simulate(configuration: Self.configuration, server: server) { harness in
            let manager = harness.manager
            var events = await manager.events().makeAsyncIterator()
            await manager.setPathViable(false)
            await manager.connect(to: ManagerHarness.url)
            await harness.waitFor(&events) { $0 == .phase(.offline) }
            try? await harness.clock.sleep(for: .seconds(120))
            let handshakes = server.handshakeHeaders.count
            let returned = harness.clock.now.sinceStart
            await manager.setPathViable(true)
            await harness.waitFor(&events) { $0.isOpen }
            let phase = await manager.phase
            seen.set((handshakes, returned, harness.clock.now.sinceStart, phase))
        }
        #expect(run.finished, "\(run.log)")
        #expect(seen.value.handshakesWhileOffline == 0)
        #expect(seen.value.phase == .open(attempt: 1))
        // The in-memory server answers at once: open in the instant the path came back.
        #expect(seen.value.openAt == seen.value.returnedAt, "\(run.log)")
    }

    @Test("a failing server's backoff is not spent during an outage: the return tries at once, as the next attempt")
    func backoffNotSpent() {
        let server = InMemoryServer()
        server.failHandshakes(with: 503)
        let phases = Locked<[Phase]>([])
        let run = ManagerHarness.simulate(configuration: Self.configuration, server: server) { harness in
            let manager = harness.manager
            var events = await manager.events().makeAsyncIterator()
            await manager.connect(to: ManagerHarness.url)
            // Two failures, then the path goes while the manager waits to retry.
            await harness.waitFor(&events) { $0 == .phase(.connecting(attempt: 2)) }
            await harness.waitFor(&events) { if case .phase(.waiting) = $0 { true } else { false } }
            await manager.setPathViable(false)
            let offline = await harness.waitFor(&events) { $0 == .phase(.offline) }
            try? await harness.clock.sleep(for: .seconds(300))
            let handshakes = server.handshakeHeaders.count
            server.failHandshakes(with: nil)
            await manager.setPathViable(true)
            await harness.waitFor(&events) { $0.isOpen }
            // Recorded as phases so one expectation shows all: offline was reported, and no
            // handshake was made during the outage (idle marks a breach of either).
            phases.set([await manager.phase] + (handshakes == 2 && offline ? [] : [.idle]))
        }
        #expect(run.finished, "\(run.log)")
        // Attempt 3: the two failures before the outage count, the outage added none.
        #expect(phases.value == [.open(attempt: 3)], "\(run.log)")
    }
}
