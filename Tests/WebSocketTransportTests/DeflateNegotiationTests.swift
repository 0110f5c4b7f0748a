import LiveConnection
import Testing

@testable import WebSocketTransport

@Suite("permessage-deflate negotiation (RFC 7692 §7.1)")
struct DeflateNegotiationTests {
    static func answer(_ header: String) throws -> [WebSocketExtension] { try WebSocketExtension.parse([header]) }

    @Test("the extension header parses tokens, quoted values and lists, and renders back")
    func headerSyntax() throws {
        let parsed = try WebSocketExtension.parse([
            "permessage-deflate; client_max_window_bits; server_max_window_bits=\"10\" , x-foo", "x-bar;a=b",
        ])
        #expect(parsed.map(\.name) == ["permessage-deflate", "x-foo", "x-bar"])
        #expect(parsed[0].parameters == [.init("client_max_window_bits"), .init("server_max_window_bits", "10")])
        #expect(parsed[0].headerValue == "permessage-deflate; client_max_window_bits; server_max_window_bits=10")
        for bad in ["permessage-deflate;", "permessage-deflate; a=\"open", "permessage-deflate a", "; x"] {
            #expect(throws: WebSocketExtension.SyntaxError.self, "\(bad)") { try WebSocketExtension.parse([bad]) }
        }
    }

    @Test("the offer spells every option, and the request carries it")
    func offer() throws {
        #expect(PerMessageDeflate().offer.headerValue == "permessage-deflate; client_max_window_bits")
        let all = try PerMessageDeflate(
            serverMaxWindowBits: 10, clientMaxWindowBits: 9, serverNoContextTakeover: true,
            clientNoContextTakeover: true)
        #expect(
            all.offer.headerValue
                == "permessage-deflate; server_no_context_takeover; client_no_context_takeover; server_max_window_bits=10; client_max_window_bits=9"
        )
        let request = HandshakeRequest(
            target: WebSocketURL(host: "h", port: 80, isSecure: false, resource: "/"), key: "k", extensions: [all.offer]
        )
        #expect(
            String(decoding: request.bytes, as: UTF8.self).contains(
                "\r\nSec-WebSocket-Extensions: \(all.offer.headerValue)\r\n"))
        #expect(try PerMessageDeflate(parameters: all.offer.parameters) == all)
    }

    @Test("options out of range are refused with their name", arguments: [(7, 6), (16, 6), (15, 10), (15, -1)])
    func invalidOptions(bits: Int, level: Int) {
        #expect(throws: PerMessageDeflate.InvalidOption.self) {
            try PerMessageDeflate(serverMaxWindowBits: bits, compressionLevel: level)
        }
    }

    @Test(
        "options in the header's spelling are read as strictly as a server's answer",
        arguments: [
            "server_max_window_bits", "client_max_window_bits=16", "server_max_window_bits=09", "x=1",
            "server_no_context_takeover=yes", "client_no_context_takeover; client_no_context_takeover",
        ])
    func invalidSpelledOptions(parameters: String) throws {
        let parsed = try WebSocketExtension.parse(["permessage-deflate; \(parameters)"])
        #expect(throws: PerMessageDeflate.InvalidOption.self) {
            try PerMessageDeflate(parameters: parsed[0].parameters)
        }
    }

    @Test("a server's answer sets the agreement; our own promises hold whatever it says")
    func agreements() throws {
        let plain = PerMessageDeflate()
        #expect(try plain.agreement(accepting: []) == nil)
        #expect(try plain.agreement(accepting: Self.answer("permessage-deflate")) == DeflateParameters())
        #expect(
            try plain.agreement(
                accepting: Self.answer(
                    "permessage-deflate; server_no_context_takeover; client_no_context_takeover; server_max_window_bits=8; client_max_window_bits=9"
                ))
                == DeflateParameters(
                    serverMaxWindowBits: 8, clientMaxWindowBits: 9, serverNoContextTakeover: true,
                    clientNoContextTakeover: true))
        let promising = try PerMessageDeflate(clientMaxWindowBits: 10, clientNoContextTakeover: true)
        #expect(
            try promising.agreement(accepting: Self.answer("permessage-deflate"))
                == DeflateParameters(clientMaxWindowBits: 10, clientNoContextTakeover: true))
        let asking = try PerMessageDeflate(serverMaxWindowBits: 12, serverNoContextTakeover: true)
        #expect(
            try asking.agreement(
                accepting: Self.answer("permessage-deflate; server_max_window_bits=\"11\"; server_no_context_takeover"))
                == DeflateParameters(serverMaxWindowBits: 11, serverNoContextTakeover: true))
    }

    @Test(
        "answers that break RFC 7692 fail the handshake",
        arguments: [
            ("x-other", ""),
            ("permessage-deflate, permessage-deflate", ""),
            ("permessage-deflate; unknown", ""),
            ("permessage-deflate; server_no_context_takeover; server_no_context_takeover", ""),
            ("permessage-deflate; server_no_context_takeover=1", ""),
            ("permessage-deflate; server_max_window_bits=16", ""),
            ("permessage-deflate; server_max_window_bits=09", ""),
            ("permessage-deflate; server_max_window_bits", ""),
            ("permessage-deflate; client_max_window_bits=11", "client_max_window_bits=10"),
            ("permessage-deflate; server_max_window_bits=13", "server_max_window_bits=12"),
            ("permessage-deflate", "server_max_window_bits=12"),
            ("permessage-deflate", "server_no_context_takeover"),
        ])
    func invalidAnswers(header: String, offered: String) throws {
        let answer = try Self.answer(header)
        let offer = try Self.answer(offered.isEmpty ? "permessage-deflate" : "permessage-deflate; \(offered)")
        let options = try PerMessageDeflate(parameters: offer[0].parameters)
        #expect(throws: TransportError.self, "\(header)") { try options.agreement(accepting: answer) }
    }

    @Test("an extension answer to a request that offered none still fails the handshake")
    func unsolicited() throws {
        let key = "dGhlIHNhbXBsZSBub25jZQ=="
        let target = WebSocketURL(host: "h", port: 80, isSecure: false, resource: "/")
        let headers = [
            Endpoint.Header("upgrade", "websocket"), Endpoint.Header("connection", "Upgrade"),
            Endpoint.Header("sec-websocket-accept", HandshakeRequest.accept(forKey: key)),
            Endpoint.Header("sec-websocket-extensions", "permessage-deflate"),
        ]
        let response = HandshakeResponse(status: 101, headers: headers)
        #expect(throws: TransportError.self) { try response.validate(for: HandshakeRequest(target: target, key: key)) }
        let offering = HandshakeRequest(target: target, key: key, extensions: [PerMessageDeflate().offer])
        #expect(try response.validate(for: offering) == nil)
        #expect(try PerMessageDeflate().agreement(in: response) == DeflateParameters())
    }
}
