import Foundation
import LiveConnection
import TestScheduling
import Testing

@testable import WebSocketTransport

/// One negotiation against the Python `websockets` server: its settings, our offer, what must be agreed.
struct DeflateScenario: Sendable, CustomTestStringConvertible {
    var server: String
    var offer: String
    var agreed: DeflateParameters
    var testDescription: String { "server \(server), offer '\(offer)'" }

    static let all = [
        DeflateScenario(server: "{}", offer: "", agreed: DeflateParameters()),
        DeflateScenario(
            server: #"{"server_max_window_bits": 10, "client_max_window_bits": 9}"#, offer: "",
            agreed: DeflateParameters(serverMaxWindowBits: 10, clientMaxWindowBits: 9)),
        DeflateScenario(
            server: #"{"server_no_context_takeover": true, "client_no_context_takeover": true}"#, offer: "",
            agreed: DeflateParameters(serverNoContextTakeover: true, clientNoContextTakeover: true)),
        DeflateScenario(
            server: "{}", offer: "server_no_context_takeover; server_max_window_bits=9; client_no_context_takeover",
            agreed: DeflateParameters(
                serverMaxWindowBits: 9, serverNoContextTakeover: true, clientNoContextTakeover: true)),
    ]

    var options: PerMessageDeflate {
        get throws {
            let name = PerMessageDeflate.extensionName
            let parsed = try WebSocketExtension.parse([offer.isEmpty ? name : "\(name); \(offer)"])
            return try PerMessageDeflate(parameters: parsed[0].parameters)
        }
    }
}

@Suite("permessage-deflate against the Python websockets server", .waitsOnPeers, PeerServer.enabledTrait)
struct DeflatePeerTests {
    @Test("negotiates what both sides asked and echoes every kind of message", arguments: DeflateScenario.all)
    func echo(scenario: DeflateScenario) async throws {
        let server = try await PeerServer.start("echo_server.py", ["--deflate", scenario.server])
        defer { server.stop() }
        let transport = WebSocketTransport(
            configuration: .init(connectTimeout: peerConnectTimeout, compression: try scenario.options))
        let connection = try await transport.open(Endpoint(url: server.url("/")))
        #expect(connection.compression == scenario.agreed)
        var random = Xoshiro256StarStar(seed: 7)
        var sent: [Message] = []
        // Repeated messages exercise context takeover; noise and sizes past 64 KiB exercise the chunking.
        for length in [0, 1, 5, 5, 125, 4000, 70_000, 70_000, 300_000] {
            let noise = Data((0..<length).map { _ in UInt8(truncatingIfNeeded: random.nextWord() % 40) })
            sent += [.text(String(repeating: "héllo ", count: length / 7)), .binary(noise)]
        }
        for message in sent { try await connection.send(message) }
        for message in sent { #expect(try await connection.receive() == .message(message)) }
        await connection.close(code: .normal, reason: "done")
    }

    @Test("a server that does not do compression leaves it off, and messages still flow")
    func declined() async throws {
        let server = try await SharedPeers.echo
        let transport = WebSocketTransport(
            configuration: .init(connectTimeout: peerConnectTimeout, compression: PerMessageDeflate()))
        let connection = try await transport.open(Endpoint(url: server.url("/")))
        #expect(connection.compression == nil)
        try await connection.send(.text("plain"))
        #expect(try await connection.receive() == .message(.text("plain")))
        await connection.close(code: .normal, reason: "")
    }

    @Test("a compression bomb from a real server fails with 1009 at the inflated limit")
    func bomb() async throws {
        let server = try await PeerServer.start("echo_server.py", ["--deflate", "{}"])
        defer { server.stop() }
        let transport = WebSocketTransport(
            configuration: .init(
                connectTimeout: peerConnectTimeout, maxMessageSize: 1 << 20, compression: PerMessageDeflate()))
        let connection = try await transport.open(Endpoint(url: server.url("/")))
        // 20 MB of "0" arrive as about 20 KB: the limit on the wire alone would let them through.
        try await connection.send(.text("!big0 20000000"))
        let (messages, ending) = await drain(connection)
        #expect(messages.isEmpty)
        guard case .failure(.protocolViolation(let code, let detail)) = ending else {
            Issue.record("expected a protocol violation, got \(ending)")
            return
        }
        #expect(code == .messageTooBig)
        #expect(detail.contains("inflates past the limit"), "\(detail)")
    }
}
