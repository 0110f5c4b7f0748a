import Foundation
import LiveConnectionSimulator
import Testing

@testable import LiveConnection

/// What the phases tell the app beyond their names (issue 12 items 1 and 7), through the
/// manager's public API, in virtual time against the in-memory server.
@Suite("Connection manager: what the phases carry")
struct PhaseDetailTests {
    static let configuration = Seed000ScenarioTests.testConfiguration()

    @Test("the app sees the attempt that opened the connection")
    func attemptThatOpened() {
        let server = InMemoryServer()
        let opened = Locked<[Phase]>([])
        let run = ManagerHarness.simulate(configuration: Self.configuration, server: server) { harness in
            var events = await harness.manager.events().makeAsyncIterator()
            server.failHandshakes(with: 503)
            await harness.manager.connect(to: ManagerHarness.url)
            await harness.waitFor(&events) { $0 == .phase(.connecting(attempt: 3)) }
            server.failHandshakes(with: nil)
            await harness.waitFor(&events) { $0.isOpen }
            let phase = await harness.manager.phase
            opened.set([phase])
        }
        #expect(run.finished, "\(run.log)")
        // Two handshakes were refused for sure; the third may have been too, if it started
        // before the server healed: every handshake the server saw was one attempt.
        let attempts = server.handshakeHeaders.count
        #expect(attempts >= 3)
        #expect(opened.value == [.open(attempt: attempts)], "\(run.log)")
    }
}
