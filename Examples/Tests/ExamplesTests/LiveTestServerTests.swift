// The package's own test server (LiveTestServer) from another package, with the real
// transport: what a user's integration test against a local server looks like.
import Foundation
import LiveConnection
import LiveTestServer
import Testing
import WebSocketTransport

@Suite("LiveTestServer from a user's package")
struct LiveTestServerTests {
    // The time limit is the deadline on the peer: the test task is cancelled, ending the wait.
    @Test(
        "a manager on real sockets subscribes to the local server and receives its broadcast",
        .timeLimit(.minutes(1)))
    func managerReceivesABroadcast() async throws {
        let server = try LiveTestServer(configuration: .init())
        let endpoint = Endpoint(url: try #require(URL(string: "ws://127.0.0.1:\(server.port)/live")))
        let manager = ConnectionManager(transport: WebSocketTransport())
        let received = try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await server.run() }
            group.addTask { await manager.run() }
            let events = await manager.events()
            await manager.subscribe("prices")
            await manager.connect(to: endpoint)
            var text: String?
            for await event in events {
                if case .phase(.open) = event {
                    // Sent before open is reported; broadcast once the server has read it.
                    while !server.subscriptionLog.contains(where: { $0.hasSuffix(":prices") }) {
                        try await ContinuousClock().sleep(for: .milliseconds(10))
                    }
                    _ = server.broadcast(topic: "prices", text: "101.5")
                }
                if case .message(.text(let body), _) = event {
                    text = body
                    break
                }
            }
            await manager.disconnect()
            group.cancelAll()
            return text
        }
        #expect(received?.contains("101.5") == true, "\(received ?? "nothing")")
    }
}
