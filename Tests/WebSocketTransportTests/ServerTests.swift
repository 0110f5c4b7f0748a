import Foundation
import LiveConnection
import TestScheduling
import Testing

@testable import WebSocketTransport

/// The server against our own client and against hostile raw clients. Each test talks to
/// real loopback sockets under a time limit; a hostile client must get the RFC's answer
/// (or a timeout) while another client is served throughout.
@Suite("WebSocket server", .waitsOnPeers, .timeLimit(.minutes(3)))
struct ServerTests {
    static func url(_ server: WebSocketServer, _ path: String = "/") -> URL {
        URL(string: "ws://127.0.0.1:\(server.port)\(path)")!
    }

    static let transport = WebSocketTransport(configuration: .init(connectTimeout: peerConnectTimeout))

    /// Proves the server still serves: a fresh client's message comes back.
    static func assertServing(_ server: WebSocketServer) async throws {
        let connection = try await transport.open(Endpoint(url: url(server)))
        try await connection.send(.text("still there?"))
        #expect(try await connection.receive() == .message(.text("still there?")))
        await connection.close(code: .normal, reason: "")
    }

    @Test("echoes text and binary to our client, answers its pings, and completes its close handshake")
    func echo() async throws {
        try await ServerHarness.with { server in
            let connection = try await Self.transport.open(Endpoint(url: Self.url(server)))
            let big = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0) })
            try await connection.send(.text("héllo"))
            try await connection.send(.binary(big))
            #expect(try await connection.receive() == .message(.text("héllo")))
            #expect(try await connection.receive() == .message(.binary(big)))
            // The pong comes back to receive, then a receive loop reads the close's answer.
            try await connection.ping(1)
            #expect(try await connection.receive() == .pong(1))
            async let ending = connection.receive()
            await connection.close(code: .normal, reason: "bye")
            #expect(try await ending == .closed(code: .normal, reason: ""))
        }
    }

    @Test("a raw client's ping gets its payload back; its close gets the code echoed, then TCP ends")
    func rawPingAndClose() async throws {
        try await ServerHarness.with { server in
            var (client, decoder) = try await RawClient.upgraded(server)
            try await client.write(RawClient.frame(.ping, [7, 7, 7]))
            #expect(try await client.nextEvent(&decoder) == .pong([7, 7, 7]))
            try await client.write(RawClient.frame(.close, ClosePayload(code: .init(4000), reason: "done").bytes))
            #expect(try await client.nextEvent(&decoder) == .close(ClosePayload(code: .init(4000))))
            _ = try await client.awaitEnd(within: .seconds(5))
        }
    }

    /// Sends `bytes` after a valid upgrade; expects a close frame with `code`, then the end of TCP,
    /// while another client is served.
    static func expectFailure(_ bytes: [UInt8], code: CloseCode, configuration: WebSocketServer.Configuration = .init())
        async throws
    {
        try await ServerHarness.with(configuration) { server in
            var (client, decoder) = try await RawClient.upgraded(server)
            try await client.write(bytes)
            guard case .close(let body) = try await client.nextEvent(&decoder) else {
                Issue.record("no close frame")
                return
            }
            #expect(body.code == code)
            _ = try await client.awaitEnd(within: .seconds(5))
            try await assertServing(server)
            #expect(server.statistics.protocolFailures == 1)
        }
    }

    @Test("an unmasked client frame is answered with 1002")
    func unmasked() async throws {
        try await Self.expectFailure(serverFrame(opcode: 1, Array("hi".utf8)), code: .protocolError)
    }

    @Test("invalid UTF-8 in a text message is answered with 1007, even split across fragments")
    func badUTF8() async throws {
        let bytes = RawClient.frame(.text, [0x61, 0xE2, 0x82], final: false) + RawClient.frame(.continuation, [0x28])
        try await Self.expectFailure(bytes, code: .invalidPayload)
    }

    @Test("a frame over the size limit is answered with 1009 as soon as its header arrives")
    func oversize() async throws {
        // Only the header of a 2^40-byte frame is sent: the server must not wait for (or buffer) the payload.
        let header = Array(serverFrame(opcode: 2, [], maskKey: [1, 2, 3, 4], declaredLength: 1 << 40))
        try await Self.expectFailure(header, code: .messageTooBig, configuration: .init(maxMessageSize: 4096))
    }

    @Test("a reserved opcode is answered with 1002")
    func reservedOpcode() async throws {
        try await Self.expectFailure(serverFrame(opcode: 3, [], maskKey: [1, 2, 3, 4]), code: .protocolError)
    }

    @Test("fifty slow-loris handshakes are dropped at the handshake deadline while others are served")
    func slowLoris() async throws {
        try await ServerHarness.with(.init(handshakeTimeout: .milliseconds(500))) { server in
            var lorises: [RawClient] = []
            for _ in 0..<50 {
                let loris = try await RawClient.connect(server)
                try await loris.write(Array("GET / HTTP/1.1\r\nHost: x\r\n".utf8))
                lorises.append(loris)
            }
            try await Self.assertServing(server)
            for loris in lorises {
                // One more header line, too late to matter: the server hangs up at its deadline.
                try? await loris.write(Array("Upgrade: websocket\r\n".utf8))
                _ = try await loris.awaitEnd(within: .seconds(30))
            }
            #expect(server.statistics.handshakeTimeouts == 50)
            // A connection leaves the list when its task ends, a moment after its socket.
            let deadline = ContinuousClock.now + .seconds(30)
            while !server.connections.isEmpty && ContinuousClock.now < deadline {
                try await ContinuousClock().sleep(for: .milliseconds(20))
            }
            #expect(server.connections.isEmpty)
        }
    }

    @Test("a thousand idle connections fill the server: the next gets 503 at once; when they go, so does the load")
    func idleFlood() async throws {
        let configuration = WebSocketServer.Configuration(handshakeTimeout: .seconds(120), maxConnections: 1000)
        // Two thousand descriptors: no child process may start meanwhile (DescriptorGate).
        try await DescriptorGate.holdingManyDescriptors { try await self.flood(configuration) }
    }

    private func flood(_ configuration: WebSocketServer.Configuration) async throws {
        try await ServerHarness.with(configuration, limit: .seconds(110)) { server in
            var idle: [RawClient] = []
            for _ in 0..<1000 { idle.append(try await RawClient.connect(server)) }
            // Accepts happen asynchronously: wait until the server holds all of them.
            while server.connections.count < 1000 { try await ContinuousClock().sleep(for: .milliseconds(20)) }
            let turnedAway = try await RawClient.connect(server)
            try await turnedAway.write(ServerCodecTests.request(Array(ServerCodecTests.valid.dropLast())))
            let (status, _) = try await turnedAway.readHead()
            #expect(status.hasPrefix("HTTP/1.1 503"), "\(status)")
            #expect(server.statistics.turnedAway == 1)
            // The idle clients leave; the server lets every one of them go and serves again.
            for client in idle { client.socket.shutdown() }
            idle = []
            while !server.connections.isEmpty { try await ContinuousClock().sleep(for: .milliseconds(20)) }
            try await Self.assertServing(server)
        }
    }

    @Test("a client that stops reading is reset once its queue passes the limit; others are unaffected")
    func slowConsumer() async throws {
        struct Flood: WebSocketServerHandler {
            func received(_ message: Message, on connection: ServerConnection) async {
                guard message == .text("flood") else {
                    connection.send(message)
                    return
                }
                let chunk = Message.binary(Data(repeating: 1, count: 64 * 1024))
                for _ in 0..<2_000 where connection.send(chunk) {}
            }
        }
        try await ServerHarness.with(.init(maxQueuedBytes: 1 << 20), handler: Flood()) { server in
            let (client, _) = try await RawClient.upgraded(server)
            // Held here: the server forgets a connection once it ends, which a poll can miss.
            let flooded = try #require(server.connections.first)
            try await client.write(RawClient.frame(.text, Array("flood".utf8)))
            while flooded.endReason == nil { try await ContinuousClock().sleep(for: .milliseconds(20)) }
            #expect(flooded.endReason?.contains("did not read") == true)
            try await Self.assertServing(server)
        }
    }
}
