import Foundation
import LiveConnection
import TestScheduling
import Testing

@testable import WebSocketTransport

/// A URL that can never work (issue 10 item 4), end to end through the library: the real
/// transport refuses it before touching the network, and the manager stops with the
/// reason instead of retrying it forever ("invalid url" retried every backoff was the
/// issue's finding). `livesim connect` refuses such URLs itself, so only the library API
/// can hand one to the manager.
@Suite("A URL that can never work stops the manager", .waitsOnPeers, .timeLimit(.minutes(1)))
struct PermanentURLErrorTests {
    @Test(
        "one attempt, then stopped with the transport's reason; no wait, no second attempt",
        arguments: [
            ("ws://127.0.0.1:99999/", "invalid URL: bad port 99999"),
            ("http://127.0.0.1:8080/feed", "invalid URL: scheme must be ws or wss: http://127.0.0.1:8080/feed"),
        ])
    func stopsWithReason(url: String, reason: String) async throws {
        let endpoint = try #require(URL(string: url))
        // The quiet configuration's 30 s connect timeout: a whole debug suite beside this test
        // once starved the attempt's job for over a second, and the 1 s timeout fired first.
        let log = try await RealManager.withManager(quietHeartbeat: true) { manager, log in
            await manager.connect(to: endpoint)
            await log.wait { if case .phase(.stopped) = $0 { true } else { false } }
            // A manager that retried would be waiting by now (the backoff is at most 1 s and
            // the first draw is at most 100 ms) or connecting again.
            try await ContinuousClock().sleep(for: .milliseconds(300))
        }
        let phases = await log.phases
        #expect(phases == [.idle, .connecting(attempt: 1), .stopped(reason: reason)], "\(phases)")
    }
}
