import Foundation
import LiveConnectionSimulator
import Testing

@testable import LiveConnection

/// `credentialsTiming = .beforeEveryConnect` through the manager, in virtual time against
/// the in-memory server: the server sees the provider's fresh headers on every attempt.
@Suite("Connection manager: credentials before every connect")
struct CredentialsBeforeConnectTests {
    static var configuration: ConnectionConfiguration {
        var configuration = Seed000ScenarioTests.testConfiguration()
        configuration.credentialsTiming = .beforeEveryConnect
        return configuration
    }

    enum ProviderError: Error { case keychainLocked }

    /// Runs `script` with a manager whose provider mints "Bearer N" on its N-th call (and
    /// throws on the calls listed in `failing`); returns whether the body finished.
    static func run(
        server: InMemoryServer, calls: Locked<Int>, failing: Set<Int> = [],
        _ script: @escaping @Sendable (ConnectionManager, inout ConnectionEvents.Iterator) async -> Void
    ) -> Bool {
        let clock = VirtualClock()
        let result = Simulation.run(clock: clock, until: .seconds(120)) {
            let manager = ConnectionManager(
                configuration: Self.configuration, transport: server.transport, clock: clock,
                random: Xoshiro256StarStar(seed: 1),
                credentials: {
                    let call = calls.update {
                        $0 += 1; return $0
                    }
                    if failing.contains(call) { throw ProviderError.keychainLocked }
                    return [Endpoint.Header("Authorization", "Bearer \(call)")]
                })
            await withDiscardingTaskGroup { group in
                group.addTask { await manager.run() }
                var events = await manager.events().makeAsyncIterator()
                await script(manager, &events)
                group.cancelAll()
            }
        }
        return result.bodyFinished && !result.timeLimitReached
    }

    @Test("every attempt asks the provider first and sends its headers, over the endpoint's own")
    func everyAttemptFetches() {
        let server = InMemoryServer()
        let calls = Locked(0)
        let finished = Self.run(server: server, calls: calls) { manager, events in
            await manager.connect(
                to: Endpoint(url: ManagerHarness.url, headers: [.init("Authorization", "Bearer old")]))
            while let event = await events.next(), !event.isOpen {}
            server.resetAll()
            while let event = await events.next(), !event.isOpen {}
            server.closeAll(code: .tokenExpired, reason: "token expired")
            while let event = await events.next(), !event.isOpen {}
        }
        #expect(finished)
        #expect(server.handshakeHeaders.map { $0.map(\.value) } == [["Bearer 1"], ["Bearer 2"], ["Bearer 3"]])
        #expect(calls.value == 3, "one call per attempt; the expiry asked for no refresh of its own")
    }

    @Test("a provider that throws fails that attempt ('credentials unavailable'); the next attempt asks again")
    func providerFailureBacksOff() {
        let server = InMemoryServer()
        let calls = Locked(0)
        let waits = Locked<[String]>([])
        let finished = Self.run(server: server, calls: calls, failing: [1]) { manager, events in
            await manager.connect(to: ManagerHarness.url)
            while let event = await events.next(), !event.isOpen {
                if case .phase(.waiting(let reason, _, _)) = event { waits.update { $0.append(reason) } }
            }
        }
        #expect(finished)
        #expect(waits.value == ["credentials unavailable"])
        #expect(
            server.handshakeHeaders.map { $0.map(\.value) } == [["Bearer 2"]], "nothing dialled without credentials")
    }
}
