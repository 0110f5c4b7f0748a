import Foundation
import LiveConnectionSimulator
import Testing

@testable import LiveConnection

/// A command an app might send: encoded as JSON by `send(_:encoder:)`.
struct PlaceOrder: Codable, Equatable, Sendable {
    var id: Int
    var item: String
    var price: Double
}

/// `send(data:)` and `send(_ Encodable)` through the manager, in virtual time.
@Suite("Typed sends through the manager")
struct TypedSendTests {
    static func sortedEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }

    @Test("binary data and an Encodable value reach the server once each, as binary and as JSON text")
    func typedSends() {
        let server = InMemoryServer()
        let failures = Locked<[String]>([])
        let bytes = Data([0x00, 0xFF, 0x10, 0x80])
        let run = ManagerHarness.simulate(configuration: ConnectionManagerTests.configuration, server: server) {
            harness in
            var events = await harness.manager.events().makeAsyncIterator()
            await harness.manager.connect(to: ManagerHarness.url)
            await harness.waitFor(&events) { $0.isOpen }
            do throws(CommandError) {
                try await harness.manager.send(data: bytes)
                try await harness.manager.send(
                    PlaceOrder(id: 7, item: "tea", price: 2.5), encoder: Self.sortedEncoder())
            } catch {
                failures.update { $0.append("\(error)") }
            }
        }
        #expect(run.finished)
        #expect(failures.value.isEmpty)
        #expect(server.receivedMessages == [.binary(bytes), .text(#"{"id":7,"item":"tea","price":2.5}"#)])
    }

    @Test("a value JSON cannot encode fails with encodingFailed, and nothing reaches the server")
    func unencodable() {
        let server = InMemoryServer()
        let outcome = Locked<CommandError?>(nil)
        let run = ManagerHarness.simulate(configuration: ConnectionManagerTests.configuration, server: server) {
            harness in
            var events = await harness.manager.events().makeAsyncIterator()
            await harness.manager.connect(to: ManagerHarness.url)
            await harness.waitFor(&events) { $0.isOpen }
            // JSON has no NaN: the default encoder refuses it.
            do throws(CommandError) {
                try await harness.manager.send(PlaceOrder(id: 1, item: "x", price: .nan))
            } catch {
                outcome.set(error)
            }
        }
        #expect(run.finished)
        guard case .encodingFailed(let detail) = outcome.value else {
            Issue.record("expected encodingFailed, got \(String(describing: outcome.value))")
            return
        }
        #expect(!detail.isEmpty)
        #expect(server.receivedMessages.isEmpty)
    }

    @Test("typed sends with no connection fail 'not connected' before anything is sent")
    func notConnected() {
        let server = InMemoryServer()
        let outcomes = Locked<[CommandError]>([])
        _ = ManagerHarness.simulate(configuration: ConnectionManagerTests.configuration, server: server) { harness in
            do throws(CommandError) { try await harness.manager.send(data: Data([1])) } catch {
                outcomes.update { $0.append(error) }
            }
            do throws(CommandError) { try await harness.manager.send(PlaceOrder(id: 1, item: "x", price: 1)) } catch {
                outcomes.update { $0.append(error) }
            }
        }
        #expect(outcomes.value == [.notConnected, .notConnected])
        #expect(server.receivedMessages.isEmpty)
    }
}
