import Foundation
import LiveConnection
import Testing

@testable import WebSocketTransport

@Suite("Opening handshake")
struct HandshakeTests {
    static let request = HandshakeRequest(
        target: WebSocketURL(host: "server.example.com", port: 8080, isSecure: false, resource: "/chat?room=1"),
        key: "dGhlIHNhbXBsZSBub25jZQ==", headers: [.init("Authorization", "Bearer abc")],
        subprotocols: ["chat", "superchat"])

    static func response(_ lines: [String]) -> [UInt8] { Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8) }

    static let goodLines = [
        "HTTP/1.1 101 Switching Protocols", "Upgrade: websocket", "Connection: Upgrade",
        "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=",
    ]

    @Test("writes the request line, required headers, subprotocols and extra headers")
    func requestBytes() {
        let text = String(decoding: Self.request.bytes, as: UTF8.self)
        #expect(text.hasPrefix("GET /chat?room=1 HTTP/1.1\r\nHost: server.example.com:8080\r\n"))
        for line in [
            "Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
            "Sec-WebSocket-Version: 13", "Sec-WebSocket-Protocol: chat, superchat", "Authorization: Bearer abc",
        ] {
            #expect(text.contains("\r\n\(line)\r\n"), "\(line)")
        }
        #expect(text.hasSuffix("\r\n\r\n"))
    }

    @Test("draws a 16-byte key from the random source, the same for the same seed")
    func keyFromRandom() throws {
        var first = Xoshiro256StarStar(seed: 3)
        var second = Xoshiro256StarStar(seed: 3)
        let key = HandshakeRequest.makeKey(using: &first)
        #expect(key == HandshakeRequest.makeKey(using: &second))
        #expect(try #require(Data(base64Encoded: key)).count == 16)
    }

    @Test("accepts a 101 with the right accept value and returns the bytes after the head")
    func acceptsUpgrade() throws {
        let bytes = Self.response(Self.goodLines + ["Sec-WebSocket-Protocol: superchat"]) + [0x81, 0x00]
        let (response, consumed) = try #require(try HandshakeResponse.parse(bytes))
        #expect(try response.validate(for: Self.request) == "superchat")
        #expect(Array(bytes[consumed...]) == [0x81, 0x00])
    }

    @Test("waits for the whole head")
    func partialHead() throws {
        let bytes = Self.response(Self.goodLines)
        #expect(try HandshakeResponse.parse(bytes.dropLast()) == nil)
    }

    @Test("reports the status of a refused upgrade", arguments: [401, 403, 404, 503])
    func rejected(status: Int) throws {
        let (response, _) = try #require(try HandshakeResponse.parse(Self.response(["HTTP/1.1 \(status) Nope"])))
        #expect(throws: TransportError.handshakeRejected(status: status)) { try response.validate(for: Self.request) }
    }

    @Test(
        "refuses an upgrade that is not a valid WebSocket answer",
        arguments: [
            ["HTTP/1.1 101 OK", "Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Accept: wrong="],
            ["HTTP/1.1 101 OK", "Connection: Upgrade", "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo="],
            ["HTTP/1.1 101 OK", "Upgrade: websocket", "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo="],
            goodLines + ["Sec-WebSocket-Protocol: other"],
            goodLines + ["Sec-WebSocket-Extensions: permessage-deflate"],
        ])
    func invalid(lines: [String]) throws {
        let (response, _) = try #require(try HandshakeResponse.parse(Self.response(lines)))
        #expect(throws: TransportError.self) { try response.validate(for: Self.request) }
        do { _ = try response.validate(for: Self.request) } catch {
            if case .handshakeInvalid = error {} else { Issue.record("\(error)") }
        }
    }

    @Test(
        "refuses headers and subprotocols that would break the request",
        arguments: [
            Endpoint(url: URL(string: "ws://x/")!, headers: [.init("X-Evil", "a\r\nInjected: yes")]),
            Endpoint(url: URL(string: "ws://x/")!, headers: [.init("Bad Name", "v")]),
            Endpoint(url: URL(string: "ws://x/")!, headers: [.init("", "v")]),
            Endpoint(url: URL(string: "ws://x/")!, subprotocols: ["two words"]),
            Endpoint(url: URL(string: "ws://x/")!, subprotocols: ["a,b"]),
        ])
    func badHeaders(endpoint: Endpoint) {
        #expect(throws: TransportError.self) { try HandshakeRequest(endpoint: endpoint, key: "k") }
    }

    @Test("accepts ordinary headers and subprotocol tokens")
    func goodHeaders() throws {
        let endpoint = Endpoint(
            url: URL(string: "ws://x/")!, headers: [.init("Authorization", "Bearer a.b-c_d=")],
            subprotocols: ["v1.live"])
        #expect(try HandshakeRequest(endpoint: endpoint, key: "k").headers.count == 1)
    }

    @Test("refuses a head that never ends instead of buffering it")
    func endlessHead() {
        let bytes = Array(repeating: UInt8(ascii: "a"), count: HandshakeResponse.maximumHeadLength + 1)
        #expect(throws: TransportError.self) { try HandshakeResponse.parse(bytes) }
    }

    @Test("refuses URLs that are not ws or wss", arguments: ["http://x/", "wss:///nohost", "ftp://x"])
    func badURL(text: String) throws {
        let url = try #require(URL(string: text))
        #expect(throws: TransportError.self) { try WebSocketURL(url) }
    }

    @Test("takes an IPv6 literal apart and brackets it again in Host")
    func ipv6() throws {
        let target = try WebSocketURL(#require(URL(string: "ws://[::1]:8080/live")))
        #expect(target.host == "::1")
        #expect(target.hostHeader == "[::1]:8080")
    }

    @Test("uses the scheme's default port and omits it from Host")
    func defaults() throws {
        let target = try WebSocketURL(#require(URL(string: "wss://example.com")))
        #expect(target.port == 443)
        #expect(target.resource == "/")
        #expect(target.hostHeader == "example.com")
    }
}
