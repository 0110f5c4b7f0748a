import LiveConnection
import Testing

@testable import WebSocketTransport

/// One offer a server reads: its own settings (header syntax), the client's
/// `Sec-WebSocket-Extensions` value, and the answer RFC 7692 §7.1 calls for (nil: declined).
struct ServerOfferCase: Sendable, CustomTestStringConvertible {
    var settings: String
    var offer: String
    var answer: String?
    var agreed: DeflateParameters?
    var rule: String
    var testDescription: String { "\(rule): settings '\(settings)', offer '\(offer)'" }

    init(_ rule: String, settings: String = "", _ offer: String, _ answer: String?, _ agreed: DeflateParameters?) {
        self.rule = rule
        self.settings = settings
        self.offer = offer
        self.answer = answer
        self.agreed = agreed
    }

    static let name = "permessage-deflate"

    var server: PerMessageDeflate {
        get throws {
            let parsed = try WebSocketExtension.parse([settings.isEmpty ? Self.name : "\(Self.name); \(settings)"])
            return try PerMessageDeflate(parameters: parsed[0].parameters)
        }
    }

    static let accepted: [ServerOfferCase] = [
        .init("a bare offer is answered bare", "permessage-deflate", "permessage-deflate", DeflateParameters()),
        .init(
            "a bare client_max_window_bits asks nothing of a server with no limit",
            "permessage-deflate; client_max_window_bits", "permessage-deflate", DeflateParameters()),
        .init(
            "§7.1.2.1: an offered server_max_window_bits is answered with the same value",
            "permessage-deflate; server_max_window_bits=10", "permessage-deflate; server_max_window_bits=10",
            DeflateParameters(serverMaxWindowBits: 10)),
        .init(
            "§7.1.2.1: answered even at 15",
            "permessage-deflate; server_max_window_bits=15", "permessage-deflate; server_max_window_bits=15",
            DeflateParameters()),
        .init(
            "8 bits are honoured (zlib deflates with 9 but never reaches back further than 250 bytes)",
            "permessage-deflate; server_max_window_bits=8", "permessage-deflate; server_max_window_bits=8",
            DeflateParameters(serverMaxWindowBits: 8)),
        .init(
            "a quoted window value and an upper-case name are read",
            "PerMessage-Deflate; server_max_window_bits=\"9\"", "permessage-deflate; server_max_window_bits=9",
            DeflateParameters(serverMaxWindowBits: 9)),
        .init(
            "§7.1.2.2: the client's own limit is repeated",
            "permessage-deflate; client_max_window_bits=9", "permessage-deflate; client_max_window_bits=9",
            DeflateParameters(clientMaxWindowBits: 9)),
        .init(
            "§7.1.1.1: server_no_context_takeover offered must be in the answer",
            "permessage-deflate; server_no_context_takeover", "permessage-deflate; server_no_context_takeover",
            DeflateParameters(serverNoContextTakeover: true)),
        .init(
            "§7.1.1.2: the client's client_no_context_takeover hint is answered, which makes it binding",
            "permessage-deflate; client_no_context_takeover", "permessage-deflate; client_no_context_takeover",
            DeflateParameters(clientNoContextTakeover: true)),
        .init(
            "all four at once",
            "permessage-deflate; client_no_context_takeover; server_no_context_takeover; server_max_window_bits=12; client_max_window_bits=11",
            "permessage-deflate; server_no_context_takeover; client_no_context_takeover; server_max_window_bits=12; client_max_window_bits=11",
            DeflateParameters(
                serverMaxWindowBits: 12, clientMaxWindowBits: 11, serverNoContextTakeover: true,
                clientNoContextTakeover: true)),
        .init(
            "§7.1.2.1: a server may announce a smaller window unasked", settings: "server_max_window_bits=10",
            "permessage-deflate", "permessage-deflate; server_max_window_bits=10",
            DeflateParameters(serverMaxWindowBits: 10)),
        .init(
            "§7.1.2.1: the smaller of the offer and our limit, ours", settings: "server_max_window_bits=10",
            "permessage-deflate; server_max_window_bits=12", "permessage-deflate; server_max_window_bits=10",
            DeflateParameters(serverMaxWindowBits: 10)),
        .init(
            "§7.1.2.1: the smaller of the offer and our limit, the client's", settings: "server_max_window_bits=10",
            "permessage-deflate; server_max_window_bits=9", "permessage-deflate; server_max_window_bits=9",
            DeflateParameters(serverMaxWindowBits: 9)),
        .init(
            "§7.1.2.2: a client that offers a bare client_max_window_bits gets our limit",
            settings: "client_max_window_bits=10", "permessage-deflate; client_max_window_bits",
            "permessage-deflate; client_max_window_bits=10", DeflateParameters(clientMaxWindowBits: 10)),
        .init(
            "§7.1.2.2: the smaller of the client's limit and ours", settings: "client_max_window_bits=10",
            "permessage-deflate; client_max_window_bits=12", "permessage-deflate; client_max_window_bits=10",
            DeflateParameters(clientMaxWindowBits: 10)),
        .init(
            "§7.1.2.2: a client that did not name client_max_window_bits is never asked, and keeps 15",
            settings: "client_max_window_bits=10", "permessage-deflate", "permessage-deflate", DeflateParameters()),
        .init(
            "our own server_no_context_takeover is said", settings: "server_no_context_takeover", "permessage-deflate",
            "permessage-deflate; server_no_context_takeover", DeflateParameters(serverNoContextTakeover: true)),
        .init(
            "§7.1.1.2: a server may require client_no_context_takeover unoffered",
            settings: "client_no_context_takeover", "permessage-deflate",
            "permessage-deflate; client_no_context_takeover", DeflateParameters(clientNoContextTakeover: true)),
        .init(
            "§5: other extensions are skipped", "x-webkit-deflate-frame, permessage-deflate; server_max_window_bits=11",
            "permessage-deflate; server_max_window_bits=11", DeflateParameters(serverMaxWindowBits: 11)),
        .init(
            "§5: the first acceptable offer wins over later fallbacks",
            "permessage-deflate; server_no_context_takeover, permessage-deflate",
            "permessage-deflate; server_no_context_takeover", DeflateParameters(serverNoContextTakeover: true)),
        .init(
            "§7.1: an invalid offer is declined and the valid fallback after it taken",
            "permessage-deflate; server_max_window_bits=16, permessage-deflate; client_max_window_bits=9",
            "permessage-deflate; client_max_window_bits=9", DeflateParameters(clientMaxWindowBits: 9)),
    ]

    /// §7.1: "A server MUST decline an extension negotiation offer for this extension if …"
    static let declined: [ServerOfferCase] = [
        .init("no offer", "", nil, nil),
        .init("only another extension", "x-webkit-deflate-frame", nil, nil),
        .init("a parameter not defined for an offer", "permessage-deflate; mux", nil, nil),
        .init("server_max_window_bits needs a value", "permessage-deflate; server_max_window_bits", nil, nil),
        .init("a window below 8", "permessage-deflate; server_max_window_bits=7", nil, nil),
        .init("a window above 15", "permessage-deflate; client_max_window_bits=16", nil, nil),
        .init("a window with a leading zero", "permessage-deflate; server_max_window_bits=09", nil, nil),
        .init("a flag with a value", "permessage-deflate; server_no_context_takeover=1", nil, nil),
        .init(
            "a repeated parameter", "permessage-deflate; client_no_context_takeover; client_no_context_takeover",
            nil, nil),
        .init(
            "every offer invalid", "permessage-deflate; x=1, permessage-deflate; server_max_window_bits=100", nil,
            nil),
    ]
}

@Suite("permessage-deflate negotiation, the server's answers (RFC 7692 §5, §7.1)")
struct ServerDeflateNegotiationTests {
    @Test("a valid offer is accepted with the answer §7.1 asks", arguments: ServerOfferCase.accepted)
    func accepted(scenario: ServerOfferCase) throws {
        let acceptance = try #require(try scenario.server.answer(to: WebSocketExtension.parse([scenario.offer])))
        #expect(acceptance.response.headerValue == scenario.answer)
        #expect(acceptance.agreed == scenario.agreed)
    }

    @Test("an offer §7.1 says to decline is left out of the answer", arguments: ServerOfferCase.declined)
    func declined(scenario: ServerOfferCase) throws {
        let offers = try WebSocketExtension.parse(scenario.offer.isEmpty ? [] : [scenario.offer])
        #expect(try scenario.server.answer(to: offers) == nil)
    }

    @Test(
        "our own client accepts every answer and agrees on the same parameters",
        arguments: ["", "server_max_window_bits=9", "client_max_window_bits=10; client_no_context_takeover"],
        [
            "", "server_no_context_takeover", "server_max_window_bits=12", "client_max_window_bits=9",
            "server_max_window_bits=8; client_no_context_takeover",
        ])
    func ourClientAgrees(settings: String, offer: String) throws {
        let name = ServerOfferCase.name
        let client = try PerMessageDeflate(
            parameters: WebSocketExtension.parse([offer.isEmpty ? name : "\(name); \(offer)"])[0].parameters)
        let server = try ServerOfferCase("", settings: settings, "", nil, nil).server
        let acceptance = try #require(server.answer(to: [client.offer]))
        #expect(try client.agreement(accepting: [acceptance.response]) == acceptance.agreed, "\(acceptance.response)")
    }

    @Test("the request's headers are read, over several lines; a malformed list is declined, not failed")
    func fromRequest() throws {
        func request(_ extensions: [String]) throws -> UpgradeRequest {
            let lines = ServerCodecTests.valid + extensions.map { "Sec-WebSocket-Extensions: \($0)" }
            return try #require(try UpgradeRequest.parse(ServerCodecTests.request(lines))).0
        }
        let server = PerMessageDeflate()
        let split = try request(["x-foo", "permessage-deflate; server_max_window_bits=10"])
        #expect(server.answer(to: split)?.agreed == DeflateParameters(serverMaxWindowBits: 10))
        #expect(server.answer(to: try request(["permessage-deflate; a=\"open"])) == nil)
        #expect(server.answer(to: try request([])) == nil)
    }

}
