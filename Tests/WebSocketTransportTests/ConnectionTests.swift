import Foundation
import LiveConnection
import Testing

@testable import WebSocketTransport

/// The connection's protocol duties, against an in-memory server (no sockets, no Python).
@Suite("WebSocket connection", .timeLimit(.minutes(2)))
struct ConnectionTests {
    static func connection(
        _ stream: ScriptedStream, seed: UInt64 = 1, maxMessageSize: Int = 1 << 20,
        closeTimeout: Duration = .milliseconds(200)
    ) -> WebSocketConnection {
        WebSocketConnection(
            stream: stream, subprotocol: nil, leftover: [], maxMessageSize: maxMessageSize,
            random: Xoshiro256StarStar(seed: seed), closeTimeout: closeTimeout)
    }

    @Test("masks every frame it sends, with keys from the injected random source")
    func masksWithInjectedRandom() async throws {
        var writes: [[UInt8]] = []
        for _ in 0..<2 {
            let stream = ScriptedStream()
            let connection = Self.connection(stream, seed: 42)
            try await connection.send(.text("hello"))
            try await connection.send(.binary(Data([1, 2, 3])))
            let frames = stream.writtenFrames
            #expect(frames.map(\.payload) == [Array("hello".utf8), [1, 2, 3]])
            #expect(frames.allSatisfy { $0.maskKey != nil })
            #expect(frames[0].maskKey != frames[1].maskKey)
            writes.append(stream.writtenBytes)
        }
        #expect(writes[0] == writes[1], "the same seed must write the same bytes")
        let other = ScriptedStream()
        try await Self.connection(other, seed: 43).send(.text("hello"))
        #expect(Array(other.writtenBytes) != Array(writes[0].prefix(other.writtenBytes.count)))
    }

    @Test("answers a ping with a pong carrying the same payload, then delivers the next message")
    func answersPing() async throws {
        let stream = ScriptedStream()
        let connection = Self.connection(stream)
        stream.deliver(serverFrame(opcode: 9, Array("beat".utf8)) + serverFrame(opcode: 1, Array("data".utf8)))
        #expect(try await connection.receive() == .message(.text("data")))
        #expect(stream.writtenFrames.map(\.opcode) == [.pong])
        #expect(stream.writtenFrames.first?.payload == Array("beat".utf8))
    }

    @Test("echoes the server's close code, reports it, and refuses to send afterwards")
    func echoesClose() async throws {
        let stream = ScriptedStream()
        let connection = Self.connection(stream)
        stream.deliver(serverFrame(opcode: 8, [0x0F, 0xA1] + Array("token expired".utf8)))
        #expect(try await connection.receive() == .closed(code: .tokenExpired, reason: "token expired"))
        let frames = stream.writtenFrames
        #expect(frames.map(\.opcode) == [.close])
        #expect(frames.first?.payload == [0x0F, 0xA1])
        #expect(stream.isShutDown)
        await #expect(throws: TransportError.notConnected) { try await connection.send(.text("late")) }
        #expect(try await connection.receive() == .closed(code: .tokenExpired, reason: "token expired"))
    }

    @Test(
        "fails the connection with the failure's close code",
        arguments: [
            (serverFrame(opcode: 3, []), CloseCode.protocolError),
            (serverFrame(opcode: 1, [0xC0, 0xAF]), .invalidPayload),
            (serverFrame(opcode: 2, [], declaredLength: 1 << 40), .messageTooBig),
        ])
    func failsWithCode(bytes: [UInt8], code: CloseCode) async throws {
        let stream = ScriptedStream()
        let connection = Self.connection(stream)
        stream.deliver(bytes)
        let error = await #expect(throws: TransportError.self) { try await connection.receive() }
        guard case .protocolViolation(let sent, _) = error else {
            Issue.record("expected a protocol violation, got \(String(describing: error))")
            return
        }
        #expect(sent == code)
        #expect(stream.writtenFrames.map(\.opcode) == [.close])
        #expect(
            stream.writtenFrames.first?.payload.prefix(2) == [UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)])
        #expect(stream.isShutDown)
    }

    @Test("reports an end of stream without a close frame as a reset; a ping after it fails")
    func endOfStream() async throws {
        let stream = ScriptedStream()
        let connection = Self.connection(stream)
        try await connection.ping(1)  // returns once written: nothing waits for its pong
        stream.end()
        await #expect(throws: TransportError.reset(errno: "EOF")) { try await connection.receive() }
        await #expect(throws: TransportError.notConnected) { try await connection.ping(2) }
    }

    @Test(
        "a ping returns once written with its number as the payload; receive reports its pong, not an unsolicited one")
    func pingMatching() async throws {
        let stream = ScriptedStream(answersPings: true)
        let connection = Self.connection(stream)
        stream.deliver(serverFrame(opcode: 10, Array("nobody asked".utf8)))
        for number: UInt64 in 1...3 { try await connection.ping(number) }
        var events: [TransportEvent] = []
        for _ in 0..<3 { events.append(try await connection.receive()) }
        #expect(events == [.pong(1), .pong(2), .pong(3)])
        let pings = stream.writtenFrames.filter { $0.opcode == .ping }.map(\.payload)
        #expect(pings == [[0, 0, 0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 0, 0, 2], [0, 0, 0, 0, 0, 0, 0, 3]])
    }

    @Test("a pong answers every older outstanding ping too: it is reported once, and an older pong after it is not")
    func laterPongCompletesOlderPings() async throws {
        let stream = ScriptedStream()
        let connection = Self.connection(stream)
        try await connection.ping(1)
        try await connection.ping(2)
        let payloads = stream.writtenFrames.map(\.payload)
        // Answer only the most recent ping, as RFC 6455 §5.5.3 allows; the older pong comes late.
        stream.deliver(
            serverFrame(opcode: 10, payloads[1]) + serverFrame(opcode: 10, payloads[0])
                + serverFrame(opcode: 1, Array("done".utf8)))
        #expect(try await connection.receive() == .pong(2))
        #expect(try await connection.receive() == .message(.text("done")))
    }

    @Test("close sends our close frame and waits for the server's")
    func clientClose() async throws {
        let stream = ScriptedStream()
        let connection = Self.connection(stream)
        stream.deliver(serverFrame(opcode: 8, [0x03, 0xE9]))
        await connection.close(code: .goingAway, reason: "bye")
        #expect(stream.writtenFrames.first?.opcode == .close)
        #expect(stream.writtenFrames.first?.payload == [0x03, 0xE9] + Array("bye".utf8))
        #expect(stream.isShutDown)
    }

    @Test(
        "close without a receive loop reads the server's close itself: a pong on the way is dropped, and a receive that starts meanwhile waits and reports the server's close"
    )
    func closeReadsForItself() async throws {
        let stream = ScriptedStream()
        // The server answers late on a loaded machine; the close must not give up first.
        let connection = Self.connection(stream, closeTimeout: .seconds(60))
        try await connection.ping(1)
        let ping = stream.writtenFrames.first { $0.opcode == .ping }?.payload ?? []
        try await withThrowingTaskGroup(of: TransportEvent?.self) { group in
            group.addTask {
                await connection.close(code: .goingAway, reason: "bye")
                return nil
            }
            // close() is the only reader now; a receive that starts must not read beside it.
            while !stream.hasWaitingReader { await Task.yield() }
            group.addTask { try await connection.receive() }
            for _ in 0..<100 { await Task.yield() }
            stream.deliver(serverFrame(opcode: 10, ping) + serverFrame(opcode: 8, [0x03, 0xE8] + Array("ack".utf8)))
            var events: [TransportEvent] = []
            for try await event in group { if let event { events.append(event) } }
            #expect(events == [.closed(code: .normal, reason: "ack")])
        }
        #expect(try await connection.receive() == .closed(code: .normal, reason: "ack"))
        #expect(stream.isShutDown)
    }

    @Test("close with a receive loop running waits for the server's close, which the loop reports")
    func closeWithReceiver() async throws {
        let stream = ScriptedStream()
        let connection = Self.connection(stream)
        try await withThrowingTaskGroup(of: TransportEvent.self) { group in
            group.addTask { try await connection.receive() }
            while !stream.hasWaitingReader { await Task.yield() }
            group.addTask {
                // The server answers our close frame as soon as it sees it.
                while stream.writtenFrames.isEmpty { await Task.yield() }
                stream.deliver(serverFrame(opcode: 8, [0x03, 0xE8]))
                return .message(.text("server answered"))
            }
            await connection.close(code: .normal, reason: "done")
            var results: [TransportEvent] = []
            for try await result in group { results.append(result) }
            #expect(results.contains(.closed(code: .normal, reason: "")))
        }
        #expect(stream.isShutDown)
    }

    @Test("close with a receive loop running gives up after the close timeout when the server never answers")
    func closeWithSilentServer() async throws {
        let stream = ScriptedStream()
        let connection = Self.connection(stream)
        try await withThrowingTaskGroup(of: TransportEvent.self) { group in
            group.addTask { try await connection.receive() }
            // Close only once the receiver is inside receive(), waiting for bytes.
            while !stream.hasWaitingReader { await Task.yield() }
            await connection.close(code: .goingAway, reason: "bye")
            let event = try await group.next()
            #expect(event == .closed(code: .goingAway, reason: "bye"))
        }
        #expect(stream.isShutDown)
    }

    @Test("reports an unresolvable host")
    func unresolvable() async throws {
        await #expect(throws: TransportError.unresolvable(host: "no-such-host.invalid")) {
            try await WebSocketTransport().open(Endpoint(url: URL(string: "ws://no-such-host.invalid/")!))
        }
    }

}
