import Foundation
import LiveConnection
import TestScheduling
import Testing
import WebSocketTransport

/// How one of `adversarial_server.py`'s `limit-*` scenarios sends its message of
/// ``messageSize`` bytes, then a close with 1000.
enum LimitShape: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case text
    case binary
    /// Three fragments, the first ending inside a two-byte character, a ping after the first.
    case fragmentedText = "text-fragmented"
    case fragmentedBinary = "binary-fragmented"

    /// Every scenario's message, in payload bytes: the limit a test sets, or one byte more.
    static let messageSize = 100_000

    var scenario: String { "limit-\(rawValue)" }
    var testDescription: String { rawValue }

    /// The message the server sends, written out here from the scenario's description rather
    /// than taken from the server: 50 000 "é" (two bytes each, so a limit counted in characters
    /// would let twice the bytes through), or the bytes 0, 1, ... counting modulo 251.
    var message: Message {
        switch self {
        case .text, .fragmentedText: .text(String(repeating: "é", count: Self.messageSize / 2))
        case .binary, .fragmentedBinary: .binary(Data((0..<Self.messageSize).map { UInt8($0 % 251) }))
        }
    }

    /// What the client sends before its close frame: the pong to the ping between the first
    /// two fragments ("mid"), which arrives before the fragment that could break the limit.
    var pongs: [String] {
        switch self {
        case .text, .binary: []
        case .fragmentedText, .fragmentedBinary: ["pong 6d6964"]
        }
    }
}

/// ``WebSocketTransport/Configuration/maxMessageSize`` at its boundary, against real servers: a
/// message of exactly the limit is delivered whole, one byte more fails the connection with
/// 1009 (RFC 6455 §7.4.1), whether it comes in one frame or in fragments whose sum crosses the
/// limit, and with permessage-deflate, where the limit counts inflated bytes. Through the public
/// API only: what `receive()` returns and the close code the server reads.
@Suite("Message size limit against real servers", .waitsOnPeers, PeerServer.enabledTrait, .timeLimit(.minutes(2)))
struct MessageSizeLimitPeerTests {
    @Test("a message of exactly the limit is delivered whole", arguments: LimitShape.allCases)
    func exactlyTheLimit(_ shape: LimitShape) async throws {
        let (messages, ending, record) = try await Self.run(shape, limit: LimitShape.messageSize)
        #expect(messages.map(Self.summary) == [Self.summary(shape.message)])
        if let first = messages.first {
            let whole = first == shape.message
            #expect(whole, "the delivered message differs from the one the server sent")
        }
        #expect(ending == .success(.closed(code: .normal, reason: "")))
        #expect(record == shape.pongs + ["close 1000"])
    }

    @Test("a message one byte over the limit fails the connection with 1009", arguments: LimitShape.allCases)
    func oneByteOver(_ shape: LimitShape) async throws {
        let (messages, ending, record) = try await Self.run(shape, limit: LimitShape.messageSize - 1)
        #expect(messages.map(Self.summary) == [])
        #expect(Self.violation(ending) == .messageTooBig, "the connection ended with \(ending)")
        #expect(record == shape.pongs + ["close 1009"], "the server must read 1009 in the client's close frame")
    }

    @Test(
        "with permessage-deflate the limit counts inflated bytes: exactly the limit is delivered, one byte over fails with 1009",
        arguments: ["text", "binary"])
    func inflatedLimit(_ kind: String) async throws {
        let server = try await PeerServer.start("echo_server.py", ["--deflate", "{}"])
        defer { server.stop() }
        let size = LimitShape.messageSize
        // Zeros compress about 1000:1, so the frame on the wire is far below the limit either way.
        let command = kind == "text" ? "!big0 \(size)" : "!big \(size)"
        let sent: Message = kind == "text" ? .text(String(repeating: "0", count: size)) : .binary(Data(count: size))
        for limit in [size, size - 1] {
            let transport = WebSocketTransport(
                configuration: .init(
                    connectTimeout: peerConnectTimeout, maxMessageSize: limit, compression: PerMessageDeflate()))
            let connection = try await transport.open(Endpoint(url: server.url("/")))
            try #require(connection.compression != nil, "the server agreed to compress")
            try await connection.send(.text(command))
            let event = await within(peerReplyTimeout) { await Self.nextEvent(connection) }
            if limit == size {
                let message: Message? = if case .success(.message(let message))? = event { message } else { nil }
                #expect(message.map(Self.summary) == Self.summary(sent), "limit \(limit): \(Self.describe(event))")
                if let message {
                    let whole = message == sent
                    #expect(whole, "the delivered message differs from the one the server sent")
                }
                await connection.close(code: .normal, reason: "")
            } else {
                #expect(event.flatMap(Self.violation) == .messageTooBig, "limit \(limit): \(Self.describe(event))")
            }
        }
    }

    /// Runs `shape`'s scenario with a client whose limit is `limit` bytes, reading until the
    /// connection ends; returns the messages, the ending and the server's record of the client.
    static func run(_ shape: LimitShape, limit: Int) async throws -> (
        [Message], Result<TransportEvent, TransportError>, [String]?
    ) {
        let server = try await SharedPeers.adversarial
        let id = UUID().uuidString
        let transport = WebSocketTransport(
            configuration: .init(connectTimeout: peerConnectTimeout, maxMessageSize: limit))
        let connection = try await transport.open(Endpoint(url: server.url("/case/\(shape.scenario)?id=\(id)")))
        let drained = await within(peerReplyTimeout) { await drain(connection) }
        let (messages, ending) = try #require(drained, "the scenario ends with a close frame within the deadline")
        return (messages, ending, try await server.adversarialRecord(of: id))
    }

    /// The next event, or the error that ended the connection.
    static func nextEvent(_ connection: WebSocketConnection) async -> Result<TransportEvent, TransportError> {
        do throws(TransportError) {
            return .success(try await connection.receive())
        } catch {
            return .failure(error)
        }
    }

    /// The close code of a failed connection (nil for any other ending).
    static func violation(_ ending: Result<TransportEvent, TransportError>) -> CloseCode? {
        guard case .failure(.protocolViolation(let code, _)) = ending else { return nil }
        return code
    }

    /// An event in a few words, its message summarised.
    static func describe(_ event: Result<TransportEvent, TransportError>?) -> String {
        switch event {
        case nil: "nothing within \(peerReplyTimeout)"
        case .success(.message(let message))?: "a message, \(summary(message))"
        case .success(let other)?: "\(other)"
        case .failure(let error)?: "\(error)"
        }
    }

    /// A message in a few words: what a failed expectation prints instead of 100 000 bytes.
    static func summary(_ message: Message) -> String {
        switch message {
        case .text(let text): "text of \(text.utf8.count) bytes"
        case .binary(let data): "binary of \(data.count) bytes"
        }
    }
}
