import Foundation
import LiveConnection
import Testing

@testable import WebSocketTransport

/// Runs a ``WebSocketServer`` for the length of a test body, with a time limit.
enum ServerHarness {
    struct TimedOut: Error {}

    /// Starts the server on a free loopback port, runs `body`, then stops the server and
    /// waits for every connection task. The body gets `limit`; past it the test fails.
    static func with(
        _ configuration: WebSocketServer.Configuration = .init(), handler: some WebSocketServerHandler = EchoHandler(),
        limit: Duration = .seconds(100), _ body: @escaping @Sendable (WebSocketServer) async throws -> Void
    ) async throws {
        let server = try WebSocketServer(configuration: configuration, handler: handler)
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                await server.run()
                return false
            }
            group.addTask {
                try await ContinuousClock().sleep(for: limit)
                return true
            }
            group.addTask {
                try await body(server)
                return false
            }
            // The server runs until cancelled: the first child to end is the body or the limit.
            let timedOut = try await group.next() ?? false
            group.cancelAll()
            if timedOut { throw TimedOut() }
        }
    }
}

/// A client with no WebSocket library behaviour of its own: it writes exactly the bytes a
/// test gives it (masked or not, valid or not) and reads the server's frames back.
struct RawClient: Sendable {
    let socket: TCPSocket
    static let key: [UInt8] = [1, 2, 3, 4]

    static func connect(_ server: WebSocketServer) async throws -> RawClient {
        RawClient(socket: try await TCPSocket.connect(host: "127.0.0.1", port: server.port, until: .now + .seconds(60)))
    }

    /// Connects and completes a valid upgrade; the returned decoder holds any bytes after the 101.
    static func upgraded(_ server: WebSocketServer) async throws -> (RawClient, FrameDecoder) {
        let client = try await connect(server)
        try await client.write(ServerCodecTests.request(Array(ServerCodecTests.valid.dropLast())))
        let (status, rest) = try await client.readHead()
        #expect(status.hasPrefix("HTTP/1.1 101"), "\(status)")
        var decoder = FrameDecoder(maxMessageSize: 64 << 20, role: .client)
        decoder.append(rest)
        return (client, decoder)
    }

    func write(_ bytes: [UInt8]) async throws {
        try await socket.write(bytes, until: .now + .seconds(60))
    }

    /// Reads an HTTP response head; returns its status line and the bytes after it.
    func readHead() async throws -> (String, [UInt8]) {
        let (head, rest) = try await readResponse()
        return (head?.startLine ?? "EOF", rest)
    }

    /// Reads an HTTP response head (nil at the end of the stream) and the bytes after it.
    func readResponse() async throws -> (HTTPHead?, [UInt8]) {
        var received: [UInt8] = []
        while true {
            if let (head, consumed) = try HTTPHead.parse(received, limit: 1 << 16) {
                return (head, Array(received[consumed...]))
            }
            let bytes = try await socket.read(maximum: 4096, until: .now + .seconds(60))
            if bytes.isEmpty { return (nil, []) }
            received += bytes
        }
    }

    /// The server's next frame event, or nil at the end of the stream.
    func nextEvent(_ decoder: inout FrameDecoder, within: Duration = .seconds(60)) async throws -> InboundEvent? {
        let deadline = ContinuousClock.now + within
        while true {
            if let event = try decoder.nextEvent() { return event }
            let bytes = try await socket.read(maximum: 64 * 1024, until: deadline)
            if bytes.isEmpty { return nil }
            decoder.append(bytes)
        }
    }

    /// Reads until the server closes TCP; returns how long that took. Throws ETIMEDOUT past `within`.
    func awaitEnd(within: Duration) async throws -> Duration {
        let start = ContinuousClock.now
        while try await !socket.read(maximum: 64 * 1024, until: start + within).isEmpty {}
        return start.duration(to: .now)
    }

    /// A masked client frame (what a correct client sends).
    static func frame(_ opcode: Opcode, _ payload: [UInt8], final: Bool = true) -> [UInt8] {
        FrameEncoder.encode(opcode, payload: payload, isFinal: final, maskKey: 0x0102_0304)
    }
}
