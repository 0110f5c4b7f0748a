import Foundation
import LiveConnection
import LiveTestServer
import TestScheduling
import Testing
import WebSocketTransport

/// `manager.ping(timeout:)` through the real transport against ``LiveTestServer`` (what
/// `livesim serve` runs): each outcome once, from what a real server does on the wire.
@Suite("App pings against a real server", .waitsOnPeers, .timeLimit(.minutes(2)))
struct PingPeerTests {
    @Test(
        "not connected before connect; alive from a healthy server; no answer from a frozen one; failed when a reset ends the connection first"
    )
    func outcomes() async throws {
        let live = try LiveTestServer(configuration: .init())
        let outcomes = Locked<[PingOutcome]>([])
        // The heartbeat is quiet (30 s): only the app's pings are on the wire.
        let transport = WebSocketTransport(configuration: .init(connectTimeout: peerConnectTimeout))
        try await RealManager.withManager(quietHeartbeat: true, transport: transport, alongside: { await live.run() }) {
            manager, log in
            var seen = [await manager.ping(timeout: .seconds(5))]
            await manager.connect(to: RealManager.url(live))
            await log.wait(for: RealManager.isOpen)
            seen.append(await manager.ping(timeout: .seconds(30)))
            live.server.freeze()
            seen.append(await manager.ping(timeout: .milliseconds(300)))
            // A ping waits on the frozen server when the connection is reset under it: the
            // teardown answers it, long before its 30 s deadline.
            async let ended = manager.ping(timeout: .seconds(30))
            try await ContinuousClock().sleep(for: .seconds(1))
            live.server.resetAll()
            seen.append(await ended)
            outcomes.set(seen)
        }
        #expect(outcomes.value == [.failed(.notConnected), .alive, .noAnswer, .failed(.connectionEnded)])
    }
}
