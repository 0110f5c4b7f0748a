import Foundation
import LiveConnection
import TestScheduling
import Testing

@testable import WebSocketTransport

/// A client socket waits for the answer to what it wrote inside `recv`, for at most its
/// receive timeout (`waitForAnswersInReceive`); whatever happens then, reads and writes keep
/// the meaning they have on a non-blocking socket.
@Suite("Client socket awaiting answers", .waitsOnPeers, .timeLimit(.minutes(2)))
struct TCPSocketAnswerTests {
    /// A connected client socket and the server's end of it.
    static func pair() async throws -> (client: TCPSocket, server: TCPSocket, listener: TCPListener) {
        let listener = try TCPListener(host: "127.0.0.1", port: 0)
        async let accepted = listener.accept()
        let client = try await TCPSocket.connect(host: "127.0.0.1", port: listener.port, until: .now + .seconds(30))
        return (client, try await accepted, listener)
    }

    @Test("an answer later than the receive timeout still arrives, through the reactor")
    func lateAnswer() async throws {
        let (client, server, listener) = try await Self.pair()
        _ = listener
        try await client.write(Array("question".utf8), until: nil)
        #expect(try await server.read(maximum: 64, until: .now + .seconds(30)) == Array("question".utf8))
        async let answer = client.read(maximum: 64, until: .now + .seconds(30))
        try await ContinuousClock().sleep(for: .milliseconds(50))
        try await server.write(Array("answer".utf8), until: nil)
        #expect(try await answer == Array("answer".utf8))
    }

    @Test("no answer by the deadline is ETIMEDOUT; a cancelled read ends; the peer's close reads as empty")
    func endings() async throws {
        let (client, server, listener) = try await Self.pair()
        _ = listener
        try await client.write([1], until: nil)
        await #expect(throws: TransportError.reset(errno: "ETIMEDOUT")) {
            try await client.read(maximum: 64, until: .now + .milliseconds(30))
        }
        try await client.write([2], until: nil)
        try await withThrowingTaskGroup(of: [UInt8].self) { group in
            group.addTask { try await client.read(maximum: 64, until: nil) }
            try await ContinuousClock().sleep(for: .milliseconds(20))
            group.cancelAll()
            await #expect(throws: TransportError.cancelled) { _ = try await group.next() }
        }
        try await client.write([3], until: nil)
        server.shutdown()
        #expect(try await client.read(maximum: 64, until: .now + .seconds(30)) == [])
    }

    @Test("writes never block: a peer that reads nothing leaves the write waiting in the reactor until its deadline")
    func writesDoNotBlock() async throws {
        let (client, server, listener) = try await Self.pair()
        _ = (server, listener)
        let large = [UInt8](repeating: 7, count: 64 << 20)
        await #expect(throws: TransportError.reset(errno: "ETIMEDOUT")) {
            try await client.write(large, until: .now + .milliseconds(200))
        }
    }
}
