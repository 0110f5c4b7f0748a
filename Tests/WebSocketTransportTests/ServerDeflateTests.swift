import Foundation
import LiveConnection
import TestScheduling
import Testing

@testable import WebSocketTransport

extension PerMessageDeflate {
    /// Options written as in the header, e.g. "server_max_window_bits=10; client_no_context_takeover".
    static func spelled(_ text: String) throws -> PerMessageDeflate {
        let parsed = try WebSocketExtension.parse([text.isEmpty ? extensionName : "\(extensionName); \(text)"])
        return try PerMessageDeflate(parameters: parsed[0].parameters)
    }
}

/// The server's frames as they are on the wire: header bits (RSV1) and payloads, not inflated.
struct RawFrames {
    var buffer: [UInt8]
    struct EndOfStream: Error {}

    mutating func next(from client: RawClient) async throws -> (header: FrameHeader, payload: [UInt8]) {
        let deadline = ContinuousClock.now + .seconds(60)
        while true {
            if let header = try FrameHeader.parse(buffer, compression: true),
                buffer.count >= header.headerLength + Int(header.payloadLength)
            {
                let end = header.headerLength + Int(header.payloadLength)
                defer { buffer.removeFirst(end) }
                return (header, Array(buffer[header.headerLength..<end]))
            }
            let bytes = try await client.socket.read(maximum: 64 * 1024, until: deadline)
            guard !bytes.isEmpty else { throw EndOfStream() }
            buffer += bytes
        }
    }
}

/// One pairing of our server's terms with our client's offer, and what both must agree.
struct OwnDeflateScenario: Sendable, CustomTestStringConvertible {
    var server: String
    var offer: String
    var agreed: DeflateParameters
    var testDescription: String { "server '\(server)', offer '\(offer)'" }

    static let all = [
        OwnDeflateScenario(server: "", offer: "", agreed: DeflateParameters()),
        OwnDeflateScenario(
            server: "server_max_window_bits=10; client_max_window_bits=9", offer: "",
            agreed: DeflateParameters(serverMaxWindowBits: 10, clientMaxWindowBits: 9)),
        OwnDeflateScenario(
            server: "client_no_context_takeover", offer: "server_no_context_takeover",
            agreed: DeflateParameters(serverNoContextTakeover: true, clientNoContextTakeover: true)),
        OwnDeflateScenario(
            server: "", offer: "server_max_window_bits=8; client_max_window_bits=8",
            agreed: DeflateParameters(serverMaxWindowBits: 8, clientMaxWindowBits: 8)),
    ]
}

@Suite("permessage-deflate on the server (RFC 7692)", .waitsOnPeers, .timeLimit(.minutes(3)))
struct ServerDeflateTests {
    static let deflating = WebSocketServer.Configuration(compression: PerMessageDeflate())

    /// Text that compresses well, long enough that a shared window shows in the sizes.
    static let prose = Array(String(repeating: "the quick brown fox jumps over the lazy dog; ", count: 200).utf8)

    /// Texts and binaries of 0 to 300,000 bytes, repeats among them (context takeover), noise
    /// past 64 KiB (the deflater's and the inflater's chunking).
    static var messages: [Message] {
        var random = Xoshiro256StarStar(seed: 7)
        var messages: [Message] = []
        for length in [0, 1, 5, 5, 125, 4000, 70_000, 70_000, 300_000] {
            let noise = Data((0..<length).map { _ in UInt8(truncatingIfNeeded: random.nextWord() % 40) })
            messages += [.text(String(repeating: "héllo ", count: length / 7)), .binary(noise)]
        }
        return messages
    }

    /// Connects a raw client that offers `offer` (nil: no header); returns it, the 101's
    /// `Sec-WebSocket-Extensions` values, and a reader of the frames after it.
    static func upgraded(_ server: WebSocketServer, offering offer: String?) async throws
        -> (RawClient, answer: [String], frames: RawFrames)
    {
        let client = try await RawClient.connect(server)
        let lines = ServerCodecTests.valid + (offer.map { ["Sec-WebSocket-Extensions: \($0)"] } ?? [])
        try await client.write(ServerCodecTests.request(lines))
        let (head, rest) = try await client.readResponse()
        let response = try #require(head)
        #expect(response.startLine.hasPrefix("HTTP/1.1 101"), "\(response.startLine)")
        return (client, response.values(of: "sec-websocket-extensions"), RawFrames(buffer: rest))
    }

    /// A masked client frame, RSV1 set when `compressed`.
    static func frame(_ opcode: Opcode, _ payload: [UInt8], final: Bool = true, compressed: Bool) -> [UInt8] {
        FrameEncoder.encode(opcode, payload: payload, isFinal: final, compressed: compressed, maskKey: 0x0A0B_0C0D)
    }

    /// Expects the server's close frame with `code`, then the end of TCP.
    static func expectClose(_ code: CloseCode, _ client: RawClient, _ frames: inout RawFrames) async throws {
        let (header, payload) = try await frames.next(from: client)
        #expect(header.opcode == .close)
        #expect(try ClosePayload(parsing: payload[...]).code == code)
        _ = try await client.awaitEnd(within: .seconds(10))
    }

    @Test(
        "our client and our server agree on the terms and echo every kind of message", arguments: OwnDeflateScenario.all
    )
    func ownClient(scenario: OwnDeflateScenario) async throws {
        let configuration = WebSocketServer.Configuration(compression: try .spelled(scenario.server))
        let offer = try PerMessageDeflate.spelled(scenario.offer)
        try await ServerHarness.with(configuration) { server in
            let transport = WebSocketTransport(
                configuration: .init(connectTimeout: peerConnectTimeout, compression: offer))
            let connection = try await transport.open(Endpoint(url: ServerTests.url(server)))
            #expect(connection.compression == scenario.agreed)
            #expect(server.openConnections.map(\.compression) == [scenario.agreed])
            let sent = Self.messages
            for message in sent { try await connection.send(message) }
            for message in sent { #expect(try await connection.receive() == .message(message)) }
            await connection.close(code: .normal, reason: "done")
        }
    }

    @Test(
        "on the wire: echoes carry RSV1 and share the window unless server_no_context_takeover; pongs are plain",
        arguments: [false, true])
    func onTheWire(serverNoContextTakeover: Bool) async throws {
        try await ServerHarness.with(Self.deflating) { server in
            let offer = "permessage-deflate" + (serverNoContextTakeover ? "; server_no_context_takeover" : "")
            var (client, answer, frames) = try await Self.upgraded(server, offering: offer)
            #expect(answer == [offer])
            let codec = try DeflateCodec(
                DeflateParameters(serverNoContextTakeover: serverNoContextTakeover), sending: .clientToServer)
            for _ in 0..<2 {
                try await client.write(Self.frame(.text, codec.deflater.compress(Self.prose), compressed: true))
            }
            try await client.write(Self.frame(.ping, [1, 2, 3], compressed: false))
            var sizes: [Int] = []
            for _ in 0..<2 {
                let (header, payload) = try await frames.next(from: client)
                #expect(header.opcode == .text && header.isCompressed && header.isFinal)
                var inflated: [UInt8] = []
                try codec.inflater.inflate(payload, appendingTo: &inflated, limit: 1 << 20)
                try codec.inflater.finishMessage(appendingTo: &inflated, limit: 1 << 20)
                #expect(inflated == Self.prose)
                sizes.append(payload.count)
            }
            #expect(sizes[0] < Self.prose.count / 10, "\(sizes) for \(Self.prose.count) bytes")
            if serverNoContextTakeover {
                #expect(sizes[1] == sizes[0], "each message compressed on its own")
            } else {
                #expect(sizes[1] < sizes[0] / 2, "the second message refers back to the first: \(sizes)")
            }
            let (pong, payload) = try await frames.next(from: client)
            #expect(pong.opcode == .pong && !pong.isCompressed && payload == [1, 2, 3])
        }
    }

    @Test(
        "RSV1 on a control frame or a continuation frame is answered with 1002 (RFC 7692 §6.1)",
        arguments: ["ping", "close", "continuation"])
    func rsv1Misplaced(frame kind: String) async throws {
        try await ServerHarness.with(Self.deflating) { server in
            var (client, answer, frames) = try await Self.upgraded(server, offering: "permessage-deflate")
            #expect(answer == ["permessage-deflate"])
            let deflater = try #require(DeflateParameters().makeDeflater(for: .clientToServer))
            let first = Array(deflater.compress(Self.prose))
            let bytes: [UInt8] =
                switch kind {
                case "ping": Self.frame(.ping, [1], compressed: true)
                case "close": Self.frame(.close, ClosePayload(code: .normal).bytes, compressed: true)
                default:
                    Self.frame(.text, Array(first.prefix(10)), final: false, compressed: true)
                        + Self.frame(.continuation, Array(first.dropFirst(10)), compressed: true)
                }
            try await client.write(bytes)
            try await Self.expectClose(.protocolError, client, &frames)
        }
    }

    @Test("a compression bomb is answered with 1009 once the inflated message passes the limit")
    func bomb() async throws {
        var configuration = Self.deflating
        configuration.maxMessageSize = 1 << 20
        try await ServerHarness.with(configuration) { server in
            var (client, _, frames) = try await Self.upgraded(server, offering: "permessage-deflate")
            let deflater = try #require(DeflateParameters().makeDeflater(for: .clientToServer))
            // 20 MB of zeros in about 20 KB: the limit on the wire alone would let it through.
            // An array, not `repeatElement`: an unoptimized build copied that lazy collection
            // byte by byte through generics, about 3 CPU s of the debug run.
            let compressed = deflater.compress([UInt8](repeating: UInt8(ascii: "0"), count: 20_000_000))
            #expect(compressed.count < (1 << 20) / 10)
            try await client.write(Self.frame(.text, compressed, compressed: true))
            try await Self.expectClose(.messageTooBig, client, &frames)
            #expect(server.statistics.protocolFailures == 1)
        }
    }

    @Test(
        "an offer the server cannot take opens the connection uncompressed, where RSV1 is 1002",
        arguments: [
            (true, "permessage-deflate; server_max_window_bits=16"), (true, "x-webkit-deflate-frame"),
            (false, "permessage-deflate"), (true, nil),
        ])
    func declined(configured: Bool, offer: String?) async throws {
        try await ServerHarness.with(configured ? Self.deflating : .init()) { server in
            var (client, answer, frames) = try await Self.upgraded(server, offering: offer)
            #expect(answer == [])
            #expect(server.openConnections.map(\.compression) == [nil])
            try await client.write(Self.frame(.text, Array("plain".utf8), compressed: false))
            let (echo, payload) = try await frames.next(from: client)
            #expect(!echo.isCompressed && payload == Array("plain".utf8))
            try await client.write(Self.frame(.text, [0x00], compressed: true))
            try await Self.expectClose(.protocolError, client, &frames)
        }
    }
}
