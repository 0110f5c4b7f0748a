import Foundation
import LiveConnection
import TestScheduling
import Testing

@testable import WebSocketTransport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What hostile clients can make the server hold (issue 27), as bounds that do not depend on
/// the machine: queue bytes, the tally, counters. Never a duration, never RSS.
@Suite("WebSocket server memory bounds", .waitsOnPeers, .timeLimit(.minutes(2)))
struct ServerMemoryBoundsTests {
    /// Polls `condition` every 10 ms until it holds or `within` passes; returns whether it held.
    static func eventually(within: Duration = .seconds(30), _ condition: () -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + within
        while !condition() {
            guard ContinuousClock.now < deadline else { return false }
            try await ContinuousClock().sleep(for: .milliseconds(10))
        }
        return true
    }

    /// A small receive buffer, so the kernel absorbs little of what the server sends a client that does not read.
    static func shrinkReceiveBuffer(_ client: RawClient) {
        var size: Int32 = 4096
        _ = setsockopt(client.socket.descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }

    @Test("a client that pings and never reads: its pongs stay within the queue limit; it is reset as a slow reader")
    func pingFlood() async throws {
        let limit = 64 * 1024
        try await ServerHarness.with(.init(maxQueuedBytes: limit)) { server in
            let (client, _) = try await RawClient.upgraded(server)
            Self.shrinkReceiveBuffer(client)
            let flooded = try #require(server.connections.first)
            // And a small send buffer on the server's side, so the kernel absorbs few pongs and the
            // queue reaches its limit soon even where the server runs slowly (AddressSanitizer).
            if let socket = flooded.stream as? TCPSocket {
                var size: Int32 = 4096
                _ = setsockopt(socket.descriptor, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
            }
            let batch = Array((0..<100).map { _ in RawClient.frame(.ping, Array(repeating: 7, count: 125)) }.joined())
            let deadline = ContinuousClock.now + .seconds(30)
            // Pings until the server gives up on the client (the write then fails) or the deadline.
            while flooded.endReason == nil, ContinuousClock.now < deadline {
                do { try await client.write(batch) } catch { break }
            }
            #expect(try await Self.eventually { flooded.endReason != nil }, "the flooding client was never dropped")
            #expect(
                flooded.outbox.peakQueuedBytes <= limit,
                "pongs queued \(flooded.outbox.peakQueuedBytes) bytes, limit \(limit)")
            #expect(flooded.endReason?.contains("did not read") == true, "\(flooded.endReason ?? "nil")")
            let statistics = server.statistics
            #expect(statistics.slowReaderResets == 1, "\(statistics)")
            #expect(statistics.resets == 1, "resets counts slow readers: \(statistics)")
            #expect(statistics.budgetDrops == 0, "\(statistics)")
        }
    }

    @Test("past the server-wide budget the non-readers are dropped, counted; a reader is untouched and gets everything")
    func budgetAcrossConnections() async throws {
        let budget = 1 << 20
        try await ServerHarness.with(.init(maxBufferedBytes: budget)) { server in
            let reader = try await ServerFaultTests.open(server)
            #expect(try await Self.eventually { server.openConnections.count == 1 })
            let readerSide = try #require(server.connections.first)
            var floods: [(RawClient, ServerConnection)] = []
            for _ in 0..<3 {
                let (client, _) = try await RawClient.upgraded(server)
                Self.shrinkReceiveBuffer(client)
                #expect(try await Self.eventually { server.connections.count == floods.count + 2 })
                floods.append((client, try #require(server.connections.last)))
            }
            let chunk = RawClient.frame(.binary, Array(repeating: 1, count: 64 * 1024))
            let rounds = 300
            let echoed = try await withThrowingTaskGroup(of: Int.self) { group in
                for (client, serverSide) in floods {
                    group.addTask {
                        let deadline = ContinuousClock.now + .seconds(30)
                        // Echoes it never reads, until the server drops it (the write then fails) or the deadline.
                        while serverSide.endReason == nil, ContinuousClock.now < deadline {
                            do { try await client.write(chunk) } catch { break }
                        }
                        return 0
                    }
                }
                group.addTask {
                    var received = 0
                    for round in 0..<rounds {
                        let text = "round \(round) " + String(repeating: "x", count: 1000)
                        try await reader.send(.text(text))
                        guard try await reader.receive() == .message(.text(text)) else { break }
                        received += 1
                    }
                    return received
                }
                return try await group.reduce(0, +)
            }
            for (_, serverSide) in floods {
                #expect(try await Self.eventually { serverSide.endReason != nil }, "a non-reader was never dropped")
                #expect(serverSide.endReason?.contains("buffer budget") == true, "\(serverSide.endReason ?? "nil")")
            }
            #expect(echoed == rounds, "the reading client got \(echoed) of \(rounds) echoes")
            #expect(readerSide.endReason == nil, "the reading client was dropped: \(readerSide.endReason ?? "")")
            #expect(server.statistics.budgetDrops == 3, "\(server.statistics)")
            #expect(try await Self.eventually { server.bufferedBytes <= budget }, "\(server.bufferedBytes) held")
            await reader.close(code: .normal, reason: "")
        }
    }

    @Test("the budget drops the largest holders first, only as many as bring it back under, and forgets them")
    func largestFirst() {
        let budget = BufferBudget(limit: 100)
        let connections = (1...3).map {
            ServerConnection(id: UInt64($0), stream: ScriptedStream(), maxQueuedBytes: 1000, budget: budget)
        }
        for connection in connections { budget.register(connection) }
        #expect(budget.adjust(1, outgoing: 30).isEmpty)
        #expect(budget.adjust(2, outgoing: 50).isEmpty)
        #expect(budget.adjust(3, outgoing: 10).isEmpty)
        // 30 + 50 + 10 + 15 = 105: the holder of 50 goes, nobody else.
        #expect(budget.setIncoming(3, 15).map(\.id) == [2])
        #expect(budget.heldBytes == 55)
        // The dropped connection's later changes no longer count.
        #expect(budget.adjust(2, outgoing: -50).isEmpty)
        #expect(budget.heldBytes == 55)
        // 30 + 70 + 25 = 125 > 100: the holder of 100 goes.
        #expect(budget.adjust(1, outgoing: 70).map(\.id) == [1])
        #expect(budget.heldBytes == 25)
        #expect(budget.budgetDrops == 2)
        // Under the limit nobody is touched, however large one holder is.
        #expect(budget.setIncoming(3, 85).isEmpty)
        #expect(budget.heldBytes == 95)
        // The budget and its connections refer to each other until a connection leaves, as a
        // served one does when it ends (LeakSanitizer reports the cycle otherwise).
        for connection in connections { budget.unregister(connection.id) }
    }

    static let malformedRequests: KeyValuePairs<String, [UInt8]> = [
        "LF-only lines": Array((ServerCodecTests.valid.joined(separator: "\n") + "\n\n").utf8),
        "NUL in Host": ServerCodecTests.request(
            ServerCodecTests.valid.map { $0.hasPrefix("Host:") ? "Host: exa\u{0}mple.com" : $0 }),
        "ESC in a header value": ServerCodecTests.request(ServerCodecTests.valid + ["X-Note: a\u{1B}[31mred"]),
    ]

    @Test(
        "a request with a bare LF, or a control character in a header, is answered 400",
        arguments: malformedRequests.map(\.key))
    func malformedHeads(name: String) async throws {
        let request = try #require(Self.malformedRequests.first { $0.key == name }?.value)
        try await ServerHarness.with { server in
            let client = try await RawClient.connect(server)
            try await client.write(request)
            let (status, _) = try await client.readHead()
            #expect(status.hasPrefix("HTTP/1.1 400"), "\(name): \(status)")
            #expect(server.statistics.handshakesCompleted == 0)
        }
    }

    @Test("binding a port in use says 'address already in use', not an errno number")
    func portInUse() async throws {
        try await ServerHarness.with { server in
            let error = #expect(throws: TransportError.self) {
                try WebSocketServer(configuration: .init(port: server.port), handler: EchoHandler())
            }
            let message = error.map { "\($0)" } ?? ""
            #expect(message.contains("address already in use"), "\(message)")
            #expect(message.contains("EADDRINUSE"), "\(message)")
        }
    }
}
