import Foundation
import LiveConnection
import TestScheduling
import Testing

@testable import WebSocketTransport

/// `send(data:)` and `send(_ Encodable)` through the manager and the real transport,
/// against the Python echo server, with and without permessage-deflate.
@Suite("Typed sends against a real server", .waitsOnPeers, PeerServer.enabledTrait)
struct TypedSendPeerTests {
    struct Ticket: Codable, Equatable, Sendable {
        var id: Int
        var seats: [String]
        var note: String
    }

    @Test(
        "binary data and an Encodable value come back from the echo server as they were sent", arguments: [false, true])
    func echo(compressed: Bool) async throws {
        let server = try await PeerServer.start("echo_server.py", compressed ? ["--deflate", "{}"] : [])
        defer { server.stop() }
        var configuration = WebSocketTransport.Configuration(connectTimeout: peerConnectTimeout)
        if compressed { configuration.compression = PerMessageDeflate() }
        let bytes = Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 % 7) })
        let ticket = Ticket(id: 42, seats: ["12A", "12B"], note: String(repeating: "aisle ", count: 100))
        let log = try await RealManager.withManager(
            server: server, quietHeartbeat: true, transport: WebSocketTransport(configuration: configuration)
        ) { manager, log in
            await manager.connect(to: server.url("/"))
            await log.wait(for: RealManager.isOpen)
            try await manager.send(data: bytes)
            try await manager.send(ticket)
            await log.wait { event in if case .message(.text, _) = event { true } else { false } }
        }
        let messages = await log.messages.map(\.0)
        #expect(messages.count == 2)
        #expect(messages.first == .binary(bytes))
        guard case .text(let json)? = messages.last else {
            Issue.record("expected the ticket back as text, got \(messages)")
            return
        }
        #expect(try JSONDecoder().decode(Ticket.self, from: Data(json.utf8)) == ticket)
    }
}

/// `disconnect(code:reason:)` through the manager and the real transport: the server's view.
@Suite("Disconnect with a code against a real server", .waitsOnPeers, PeerServer.enabledTrait)
struct DisconnectPeerTests {
    @Test("the server's closing handshake carries the app's code and reason")
    func customClose() async throws {
        let server = try await PeerServer.start("echo_server.py")
        defer { server.stop() }
        try await RealManager.withManager(server: server, quietHeartbeat: true) { manager, log in
            await manager.connect(to: server.url("/"))
            await log.wait(for: RealManager.isOpen)
            try await manager.disconnect(code: CloseCode(4000), reason: "signed out")
            await log.wait { $0 == .phase(.stopped(reason: "disconnected")) }
        }
        // The server records a close once its handshake finished; ask until it has (up to 5 s).
        let probe = WebSocketTransport(configuration: .init(connectTimeout: peerConnectTimeout))
        var closes = ""
        for _ in 0..<50 {
            let connection = try await probe.open(Endpoint(url: server.url("/")))
            try await connection.send(.text("!closes"))
            if case .message(.text(let text)) = try await connection.receive() { closes = text }
            await connection.close(code: .normal, reason: "")
            if closes.contains("4000") { break }
            try await ContinuousClock().sleep(for: .milliseconds(100))
        }
        #expect(closes.hasPrefix(#"[[4000, "signed out"]"#), "\(closes)")
    }
}
