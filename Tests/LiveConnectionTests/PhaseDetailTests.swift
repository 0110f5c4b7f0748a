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

    @Test("a server's close reaches the app typed: code and reason in the waiting phase, then in the stopped one")
    func closeFramesReachTheApp() {
        let server = InMemoryServer()
        let phases = Locked<[Phase]>([])
        let run = ManagerHarness.simulate(configuration: Self.configuration, server: server) { harness in
            var events = await harness.manager.events().makeAsyncIterator()
            await harness.manager.connect(to: ManagerHarness.url)
            await harness.waitFor(&events) { $0.isOpen }
            server.closeAll(code: .internalError, reason: "restarting")
            await harness.waitFor(&events) { if case .phase(.waiting) = $0 { true } else { false } }
            let waiting = await harness.manager.phase
            await harness.waitFor(&events) { $0.isOpen }
            server.closeAll(code: .forbidden, reason: "account suspended")
            await harness.waitFor(&events) { if case .phase(.stopped) = $0 { true } else { false } }
            let stopped = await harness.manager.phase
            phases.set([waiting, stopped])
        }
        #expect(run.finished, "\(run.log)")
        let restarting = CloseFrame(code: .internalError, reason: "restarting")
        guard phases.value.count == 2, case .waiting("closed 1011", _, restarting) = phases.value[0] else {
            Issue.record("waiting phase without the close frame: \(phases.value)")
            return
        }
        #expect(
            phases.value[1]
                == .stopped(reason: "closed 4003", close: CloseFrame(code: .forbidden, reason: "account suspended")))
    }

    @Test("the open connection's handshake is visible once open, the new one's after a reconnect, none while not open")
    func handshakeOfTheOpenConnection() {
        let server = InMemoryServer()
        let seen = Locked<[Handshake?]>([])
        let endpoint = Endpoint(url: ManagerHarness.url, subprotocols: ["v2.live", "v1.live"])
        let run = ManagerHarness.simulate(configuration: Self.configuration, server: server) { harness in
            var events = await harness.manager.events().makeAsyncIterator()
            let before = await harness.manager.handshake
            await harness.manager.connect(to: endpoint)
            await harness.waitFor(&events) { $0.isOpen }
            let first = await harness.manager.handshake
            server.resetAll()
            await harness.waitFor(&events) { if case .phase(.waiting) = $0 { true } else { false } }
            let waiting = await harness.manager.handshake
            await harness.waitFor(&events) { $0.isOpen }
            let second = await harness.manager.handshake
            seen.set([before, first, waiting, second])
        }
        #expect(run.finished, "\(run.log)")
        #expect(
            seen.value == [
                nil,
                Handshake(subprotocol: "v2.live", headers: [.init("x-connection", "1")]),
                nil,
                Handshake(subprotocol: "v2.live", headers: [.init("x-connection", "2")]),
            ])
        #expect(seen.value.last??.values(of: "X-Connection") == ["2"])
    }
}
