import Foundation
import LiveConnection
import TestScheduling
import Testing

@testable import LiveTestServer
@testable import WebSocketTransport

/// What a client that stops reading can make the proxy hold: a bounded queue each way (the
/// sender is slowed, nothing is lost), and the budget for all connections together.
@Suite("Fault proxy memory bounds", .waitsOnPeers, .timeLimit(.minutes(2)))
struct ProxyMemoryBoundsTests {
    static let message = Data(repeating: 7, count: 16 * 1024)

    /// An echo upstream that queues whatever a slow reader leaves (64 MiB), so the only bound
    /// tested is the proxy's.
    static func withPatientUpstream(
        configure: @escaping @Sendable (inout WebSocketProxy.Configuration) -> Void,
        _ body: @escaping @Sendable (WebSocketProxy) async throws -> Void
    ) async throws {
        try await ServerHarness.with(.init(maxQueuedBytes: 64 << 20)) { server in
            try await ProxyHarness.with(upstream: URL(string: "ws://127.0.0.1:\(server.port)/")!, configure: configure)
            {
                try await body($0)
            }
        }
    }

    @Test("a client that stops reading fills one bounded queue, and later gets every echo, in order")
    func backpressure() async throws {
        try await Self.withPatientUpstream(configure: { $0.maxQueuedBytes = 64 * 1024 }) { proxy in
            let client = try await ProxyHarness.open(proxy, client: "slow")
            // 300 × 16 KiB = 4.8 MB of echoes, more than the proxy's queues and the loopback
            // buffers between them hold: the rest waits in the upstream's queue.
            for index in 0..<300 {
                var message = Self.message
                message[0] = UInt8(index % 256)
                try await client.send(.binary(message))
            }
            // Each queue: its limit plus one frame; each reader: a 64 KiB read and one message.
            let bound = 2 * (64 * 1024 + Self.message.count) + 2 * (2 * 64 * 1024 + Self.message.count)
            #expect(proxy.bufferedBytes <= bound, "\(proxy.bufferedBytes) bytes held, bound \(bound)")
            for index in 0..<300 {
                var expected = Self.message
                expected[0] = UInt8(index % 256)
                #expect(try await client.receive() == .message(.binary(expected)), "echo \(index)")
            }
            #expect(proxy.statistics.budgetDrops == 0)
        }
    }

    @Test("past the budget for all connections the largest holder is reset and counted; a reading client flows")
    func budget() async throws {
        try await Self.withPatientUpstream(configure: {
            $0.maxQueuedBytes = 1 << 20
            $0.maxBufferedBytes = 256 * 1024
        }) { proxy in
            let slow = try await ProxyHarness.open(proxy, client: "slow")
            let reading = try await ProxyHarness.open(proxy, client: "reading")
            var dropped = false
            for _ in 0..<300 {
                do {
                    try await slow.send(.binary(Self.message))
                } catch {
                    dropped = true
                    break
                }
                if proxy.statistics.budgetDrops > 0 { break }
            }
            try await ProxyHarness.waitUntil { proxy.statistics.budgetDrops > 0 }
            #expect(proxy.statistics.budgetDrops == 1, "dropped in send: \(dropped)")
            await #expect(throws: TransportError.self) { while true { _ = try await slow.receive() } }
            #expect(try await ProxyHarness.echoes(reading, "still flowing"))
        }
    }
}
