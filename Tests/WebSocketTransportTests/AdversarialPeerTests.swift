import Foundation
import LiveConnection
import TestScheduling
import Testing

@testable import WebSocketTransport

/// What the client should report for a scenario, and what the server should have received back.
struct Scenario: Sendable, CustomTestStringConvertible {
    var name: String
    /// Autobahn|Testsuite group the behaviour belongs to.
    var group: Int
    var messages: [Message] = []
    var ending: Result<TransportEvent, TransportError>
    /// Lines the server recorded (what our client sent back), in order.
    var record: [String]
    var maxMessageSize = 1 << 20

    var testDescription: String { "\(group): \(name)" }

    static func failing(_ name: String, group: Int, _ code: CloseCode) -> Scenario {
        Scenario(name: name, group: group, ending: .failure(.protocolViolation(code, "")), record: ["close \(code)"])
    }
}

@Suite(
    "Transport against the adversarial wsproto server", .waitsOnPeers, PeerServer.enabledTrait, .timeLimit(.minutes(2)))
struct AdversarialPeerTests {
    static let normalEnd: Result<TransportEvent, TransportError> = .success(.closed(code: .normal, reason: ""))

    static let scenarios: [Scenario] = [
        Scenario(
            name: "text-lengths", group: 1,
            messages: [0, 125, 126, 65535, 65536].map { .text(String(repeating: "x", count: $0)) },
            ending: normalEnd, record: ["close 1000"]),
        Scenario(
            name: "binary-lengths", group: 1,
            messages: [0, 125, 126, 65535, 65536].map { .binary(Data(repeating: UInt8($0 % 256), count: $0)) },
            ending: normalEnd, record: ["close 1000"]),
        Scenario(
            name: "byte-by-byte", group: 1, messages: [.text("hello"), .binary(Data([1, 2, 3]))], ending: normalEnd,
            record: ["close 1000"]),
        Scenario(name: "ping", group: 2, ending: normalEnd, record: ["pong 616263", "close 1000"]),
        Scenario(
            name: "ping-125", group: 2, ending: normalEnd,
            record: ["pong " + String(repeating: "70", count: 125), "close 1000"]),
        .failing("ping-126", group: 2, .protocolError),
        Scenario(
            name: "unsolicited-pong", group: 2, messages: [.text("after")], ending: normalEnd, record: ["close 1000"]),
        .failing("rsv1", group: 3, .protocolError),
        .failing("rsv2", group: 3, .protocolError),
        .failing("rsv3-ping", group: 3, .protocolError),
        .failing("opcode-3", group: 4, .protocolError),
        .failing("opcode-7", group: 4, .protocolError),
        .failing("opcode-11", group: 4, .protocolError),
        .failing("opcode-15", group: 4, .protocolError),
        Scenario(
            name: "fragments-with-ping", group: 5, messages: [.text("fragmented")], ending: normalEnd,
            record: ["pong 6d6964", "close 1000"]),
        .failing("continuation-first", group: 5, .protocolError),
        .failing("fragmented-ping", group: 5, .protocolError),
        .failing("text-inside-fragments", group: 5, .protocolError),
        .failing("bad-utf8", group: 6, .invalidPayload),
        .failing("bad-utf8-fragmented", group: 6, .invalidPayload),
        Scenario(
            name: "good-utf8-fragmented", group: 6, messages: [.text("κόσμε 𝄞 €")], ending: normalEnd,
            record: ["close 1000"]),
        Scenario(
            name: "close-4001", group: 7, ending: .success(.closed(code: .tokenExpired, reason: "token expired")),
            record: ["close 4001"]),
        Scenario(
            name: "close-empty", group: 7, ending: .success(.closed(code: 1005, reason: "")), record: ["close 1005"]),
        .failing("close-1-byte", group: 7, .protocolError),
        .failing("close-999", group: 7, .protocolError),
        .failing("close-1005", group: 7, .protocolError),
        .failing("close-1006", group: 7, .protocolError),
        .failing("close-1015", group: 7, .protocolError),
        .failing("close-2999", group: 7, .protocolError),
        .failing("close-5000", group: 7, .protocolError),
        .failing("close-bad-reason", group: 7, .invalidPayload),
        Scenario(name: "close-then-text", group: 7, ending: normalEnd, record: ["close 1000"]),
        Scenario(
            name: "message-2mib", group: 9, messages: [.binary(Data(count: 2 << 20))], ending: normalEnd,
            record: ["close 1000"],
            maxMessageSize: 4 << 20),
        // The client fails the message while the server is still writing it: the close
        // frame reaches the server only because the client lingers (half-close, drain)
        // instead of closing with unread bytes, which would make TCP send a reset.
        .failing("message-2mib", group: 9, .messageTooBig),
        .failing("length-2-62", group: 9, .messageTooBig),
        .failing("masked", group: 1, .protocolError),
        .failing("length-top-bit", group: 1, .protocolError),
    ]

    @Test("behaves as RFC 6455 requires", arguments: scenarios)
    func scenario(_ scenario: Scenario) async throws {
        let server = try await SharedPeers.adversarial
        let id = UUID().uuidString
        let transport = WebSocketTransport(
            configuration: .init(connectTimeout: peerConnectTimeout, maxMessageSize: scenario.maxMessageSize))
        let connection = try await transport.open(Endpoint(url: server.url("/case/\(scenario.name)?id=\(id)")))
        let (messages, ending) = await drain(connection)
        #expect(messages == scenario.messages)
        switch (ending, scenario.ending) {
        case (.failure(.protocolViolation(let code, _)), .failure(.protocolViolation(let expected, _))):
            #expect(code == expected)
        default:
            #expect(ending == scenario.ending)
        }
        #expect(try await server.adversarialRecord(of: id) == scenario.record)
    }

    @Test("refuses a subprotocol the client did not offer")
    func badSubprotocol() async throws {
        let server = try await SharedPeers.adversarial
        await #expect(
            throws: TransportError.handshakeInvalid("the server chose subprotocol 'evil', which was not offered")
        ) {
            try await WebSocketTransport(configuration: .init(connectTimeout: peerConnectTimeout)).open(
                Endpoint(url: server.url("/case/bad-subprotocol"), subprotocols: ["good"]))
        }
    }

    @Test("refuses a wrong Sec-WebSocket-Accept")
    func badAccept() async throws {
        let server = try await SharedPeers.adversarial
        await #expect(throws: TransportError.handshakeInvalid("Sec-WebSocket-Accept does not match the key")) {
            try await WebSocketTransport(configuration: .init(connectTimeout: peerConnectTimeout)).open(
                Endpoint(url: server.url("/case/bad-accept")))
        }
    }
}

extension PeerServer {
    /// What `adversarial_server.py` recorded of the client's side of case `id`, one event a
    /// line ("close 1009", "pong 6d6964"); nil if the server sent no report.
    func adversarialRecord(of id: String) async throws -> [String]? {
        let report = try await WebSocketTransport(configuration: .init(connectTimeout: peerConnectTimeout)).open(
            Endpoint(url: url("/report?id=\(id)")))
        let event = try await report.receive()
        await report.close(code: .normal, reason: "")
        guard case .message(.text(let record)) = event else { return nil }
        return record.split(separator: "\n").map(String.init)
    }
}
