import Foundation
import LiveConnectionSimulator
import Testing

@testable import LiveConnection

/// `disconnect(code:reason:)` through the manager, in virtual time.
@Suite("Disconnect with a code and reason")
struct DisconnectTests {
    @Test("the server receives the app's close code and reason, and the manager stops")
    func customClose() {
        let server = InMemoryServer()
        let phases = Locked<[Phase]>([])
        let run = ManagerHarness.simulate(configuration: ConnectionManagerTests.configuration, server: server) {
            harness in
            var events = await harness.manager.events().makeAsyncIterator()
            await harness.manager.connect(to: ManagerHarness.url)
            await harness.waitFor(&events) { $0.isOpen }
            do throws(CloseRequestError) {
                try await harness.manager.disconnect(code: CloseCode(4000), reason: "signed out")
            } catch {
                Issue.record("refused a valid code: \(error)")
            }
            await harness.waitFor(&events) { if case .phase(.stopped) = $0 { true } else { false } }
            phases.set([await harness.manager.phase])
            try? await harness.clock.sleep(for: .seconds(30))
        }
        #expect(run.finished)
        #expect(server.clientCloses == ["1:4000 signed out"])
        #expect(phases.value == [.stopped(reason: "disconnected")])
        #expect(server.connectionCount == 1, "reconnected after disconnect")
    }

    @Test(
        "codes RFC 6455 forbids and over-long reasons are refused, and the connection stays open",
        arguments: [
            (CloseCode(999), ""), (CloseCode(1004), ""), (CloseCode(1005), ""), (CloseCode(1006), ""),
            (CloseCode(1015), ""), (CloseCode(2000), ""), (CloseCode(5000), ""),
            (CloseCode(1000), String(repeating: "é", count: 62)),
        ])
    func refused(code: CloseCode, reason: String) {
        let server = InMemoryServer()
        let outcome = Locked<CloseRequestError?>(nil)
        let phase = Locked<Phase?>(nil)
        let run = ManagerHarness.simulate(configuration: ConnectionManagerTests.configuration, server: server) {
            harness in
            var events = await harness.manager.events().makeAsyncIterator()
            await harness.manager.connect(to: ManagerHarness.url)
            await harness.waitFor(&events) { $0.isOpen }
            do throws(CloseRequestError) { try await harness.manager.disconnect(code: code, reason: reason) } catch {
                outcome.set(error)
            }
            phase.set(await harness.manager.phase)
        }
        #expect(run.finished)
        let expected: CloseRequestError =
            reason.isEmpty ? .codeNotSendable(code) : .reasonTooLong(bytes: reason.utf8.count)
        #expect(outcome.value == expected)
        #expect(phase.value == .open(attempt: 1))
        // Only the harness's own shutdown at the end of the run closes the connection.
        #expect(server.clientCloses == ["1:1001 shutting down"])
    }

    @Test(
        "a 123-byte reason and every class of allowed code are accepted",
        arguments: [1000, 1001, 1003, 1011, 3000, 4999])
    func accepted(code: UInt16) {
        let server = InMemoryServer()
        let reason = String(repeating: "r", count: CloseRequestError.maximumReasonLength)
        let run = ManagerHarness.simulate(configuration: ConnectionManagerTests.configuration, server: server) {
            harness in
            var events = await harness.manager.events().makeAsyncIterator()
            await harness.manager.connect(to: ManagerHarness.url)
            await harness.waitFor(&events) { $0.isOpen }
            try? await harness.manager.disconnect(code: CloseCode(code), reason: reason)
        }
        #expect(run.finished)
        #expect(server.clientCloses == ["1:\(code) \(reason)"])
    }

    /// The app disconnects with its own code and shuts the manager down at once (the script
    /// ends, which cancels `run()`): the orders loop may be cancelled before it reads the
    /// close, and the socket must close with the app's code all the same, whatever the order
    /// the jobs run in.
    @Test("a shutdown right after disconnect(code:reason:) still closes with the app's code", arguments: 0..<40)
    func closeSurvivesShutdown(seed: UInt64) {
        let server = InMemoryServer()
        let run = ManagerHarness.simulate(
            seed: seed, configuration: ConnectionManagerTests.configuration, server: server
        ) {
            harness in
            var events = await harness.manager.events().makeAsyncIterator()
            await harness.manager.connect(to: ManagerHarness.url)
            await harness.waitFor(&events) { $0.isOpen }
            try? await harness.manager.disconnect(code: CloseCode(4000), reason: "signed out")
        }
        #expect(run.finished)
        #expect(server.clientCloses == ["1:4000 signed out"], "seed \(seed)")
    }
}

/// The attempt limit through the manager, in virtual time.
@Suite("Giving up after N attempts")
struct GiveUpManagerTests {
    @Test("three refused handshakes with a limit of three: stopped, and no fourth attempt")
    func givesUp() throws {
        let server = InMemoryServer()
        server.failHandshakes(with: 503)
        var configuration = ConnectionManagerTests.configuration
        try configuration.limitAttempts(to: 3)
        let phases = Locked<[Phase]>([])
        let run = ManagerHarness.simulate(configuration: configuration, server: server) { harness in
            var events = await harness.manager.events().makeAsyncIterator()
            await harness.manager.connect(to: ManagerHarness.url)
            while let event = await events.next() {
                guard case .phase(let phase) = event else { continue }
                phases.update { $0.append(phase) }
                if case .stopped = phase { break }
            }
            try? await harness.clock.sleep(for: .seconds(60))
        }
        #expect(run.finished)
        #expect(phases.value.last == .stopped(reason: "gave up after 3 attempts"))
        #expect(phases.value.filter { if case .connecting = $0 { true } else { false } }.count == 3)
        #expect(server.handshakeHeaders.count == 3, "attempts made: \(server.handshakeHeaders.count)")
    }
}
