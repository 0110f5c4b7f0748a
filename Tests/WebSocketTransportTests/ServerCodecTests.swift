import Foundation
import LiveConnection
import Testing

@testable import WebSocketTransport

/// The codec in the server role: client frames must be masked and are unmasked; the
/// upgrade request is read and answered as RFC 6455 §4.2 says.
@Suite("Server-role codec")
struct ServerCodecTests {
    static let key: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]

    @Test("unmasks client frames, whole or fed one byte at a time, across fragments and control frames")
    func unmasks() {
        let text = "héllo wörld, a text longer than one mask period"
        let bytes =
            serverFrame(opcode: 1, Array(text.utf8.prefix(7)), final: false, maskKey: Self.key)
            + serverFrame(opcode: 9, [1, 2, 3], maskKey: [9, 8, 7, 6])
            + serverFrame(opcode: 0, Array(text.utf8.dropFirst(7)), maskKey: [0, 0xFF, 0x10, 0x01])
            + serverFrame(opcode: 2, Array(repeating: 0xAA, count: 70_000), maskKey: Self.key)
        for chunk in [1, 3, 5, 4096, Int.max] {
            let (events, failure) = decodeAll(bytes, chunk: chunk, role: .server)
            #expect(failure == nil, "chunk \(chunk)")
            #expect(
                events == [
                    .ping([1, 2, 3]), .message(.text(text)), .message(.binary(Data(repeating: 0xAA, count: 70_000))),
                ],
                "chunk \(chunk)")
        }
    }

    @Test("an unmasked client frame fails with 1002; a masked server frame still fails the client")
    func maskRules() {
        let (_, serverSide) = decodeAll(serverFrame(opcode: 1, Array("hi".utf8)), role: .server)
        #expect(serverSide?.code == .protocolError)
        let (_, clientSide) = decodeAll(serverFrame(opcode: 1, Array("hi".utf8), maskKey: Self.key), role: .client)
        #expect(clientSide?.code == .protocolError)
    }

    @Test("bad UTF-8 in a masked text frame fails with 1007 before the frame is complete")
    func earlyUTF8() {
        // 0xC0 can never start valid UTF-8; the frame announces 100 bytes but only 10 arrive.
        var frame = serverFrame(opcode: 1, [0x61, 0xC0] + Array(repeating: 0x61, count: 98), maskKey: Self.key)
        frame.removeLast(90)
        let (_, failure) = decodeAll(frame, chunk: 1, role: .server)
        #expect(failure?.code == .invalidPayload)
    }

    @Test(
        "the encoder's unmasked server frames decode in the client role, at every length encoding",
        arguments: [0, 125, 126, 65_535, 65_536])
    func serverFrames(length: Int) {
        let payload = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let frame = FrameEncoder.encode(.binary, payload: payload, maskKey: nil)
        #expect(frame[1] & 0x80 == 0, "a server frame carries no mask bit")
        let (events, failure) = decodeAll(frame, chunk: 1000)
        #expect(failure == nil)
        #expect(events == [.message(.binary(Data(payload)))])
    }

    static func request(_ lines: [String]) -> [UInt8] { Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8) }

    static let valid = [
        "GET /live?v=2 HTTP/1.1", "Host: example.com", "Upgrade: websocket", "Connection: keep-alive, Upgrade",
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version: 13",
        "Sec-WebSocket-Protocol: chat.V2, superchat",
    ]

    @Test("parses a valid upgrade and answers with RFC 6455's own example accept value")
    func acceptsValid() throws {
        let bytes = Self.request(Self.valid) + [0x81]
        let (request, consumed) = try #require(try UpgradeRequest.parse(bytes))
        #expect(consumed == bytes.count - 1)
        #expect(request.resource == "/live?v=2")
        #expect(request.subprotocols == ["chat.V2", "superchat"])
        let response = String(decoding: request.acceptance(subprotocol: "chat.V2"), as: UTF8.self)
        #expect(response.hasPrefix("HTTP/1.1 101 Switching Protocols\r\n"))
        #expect(response.contains("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"))
        #expect(response.contains("Sec-WebSocket-Protocol: chat.V2\r\n"))
        // Our own client accepts the answer: both ends agree on the handshake.
        let (parsed, _) = try #require(try HandshakeResponse.parse(Array(response.utf8)))
        #expect(parsed.status == 101)
    }

    @Test("an incomplete head is not an error yet")
    func incomplete() throws {
        let bytes = Array(Self.request(Self.valid).dropLast(2))
        #expect(try UpgradeRequest.parse(bytes) == nil)
    }

    @Test(
        "refuses a bad upgrade with the right status",
        arguments: [
            (0, "POST /live HTTP/1.1", 405), (3, "Connection: keep-alive", 400), (2, "Upgrade: h2c", 400),
            (5, "Sec-WebSocket-Version: 8", 426), (4, "Sec-WebSocket-Key: c2hvcnQ=", 400), (1, "X-Nothing: 1", 400),
            (0, "GET /live HTTP/1.0", 400),
        ])
    func refuses(line: Int, replacement: String, status: Int) {
        var lines = Self.valid
        lines[line] = replacement
        #expect(throws: UpgradeRefusal.self) { try UpgradeRequest.parse(Self.request(lines)) }
        do {
            _ = try UpgradeRequest.parse(Self.request(lines))
        } catch {
            #expect(error.status == status, "\(error)")
            let response = String(decoding: error.response, as: UTF8.self)
            #expect(response.hasPrefix("HTTP/1.1 \(status) "))
            if status == 426 { #expect(response.contains("Sec-WebSocket-Version: 13\r\n")) }
        }
    }

    @Test("a request head that never ends is refused with 431 once over the limit, not buffered")
    func tooLong() {
        let bytes =
            Array("GET / HTTP/1.1\r\nX: ".utf8) + Array(repeating: 0x61, count: UpgradeRequest.maximumHeadLength)
        do {
            _ = try UpgradeRequest.parse(bytes)
            Issue.record("an endless head was accepted")
        } catch {
            #expect(error.status == 431)
        }
    }
}
