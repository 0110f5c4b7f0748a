import Foundation
import LiveConnection
import TestScheduling
import Testing

@testable import WebSocketTransport

/// The test-server controls, observed as a client observes them.
@Suite("WebSocket server faults", .waitsOnPeers, .timeLimit(.minutes(2)))
struct ServerFaultTests {
    static func open(_ server: WebSocketServer, timeout: Duration = peerConnectTimeout) async throws(TransportError)
        -> WebSocketConnection
    {
        try await WebSocketTransport(configuration: .init(connectTimeout: timeout)).open(
            Endpoint(url: ServerTests.url(server)))
    }

    @Test("closeAll sends the code and reason to every open client")
    func closeAll() async throws {
        try await ServerHarness.with { server in
            let first = try await Self.open(server)
            let second = try await Self.open(server)
            while server.openConnections.count < 2 { try await ContinuousClock().sleep(for: .milliseconds(10)) }
            server.closeAll(code: CloseCode(4001), reason: "token expired")
            #expect(try await first.receive() == .closed(code: CloseCode(4001), reason: "token expired"))
            #expect(try await second.receive() == .closed(code: CloseCode(4001), reason: "token expired"))
        }
    }

    @Test("a close asked for the moment a client's handshake returns reaches that client (the 101 counts as open)")
    func closeRightAfterTheHandshake() async throws {
        try await ServerHarness.with { server in
            for round in 1...20 {
                let connection = try await Self.open(server)
                // No wait for the server's side: a test driving faults acts on the client's "open".
                server.closeAll(code: CloseCode(4001), reason: "round \(round)")
                let event = try await withThrowingTaskGroup(of: TransportEvent?.self) { group in
                    group.addTask { try await connection.receive() }
                    group.addTask {
                        try await ContinuousClock().sleep(for: .seconds(20))
                        return nil
                    }
                    defer { group.cancelAll() }
                    return try await group.next() ?? nil
                }
                #expect(event == .closed(code: CloseCode(4001), reason: "round \(round)"), "round \(round)")
                await connection.close(code: .normal, reason: "")
            }
        }
    }

    @Test("resetAll: the client sees ECONNRESET, no close frame")
    func resetAll() async throws {
        try await ServerHarness.with { server in
            let connection = try await Self.open(server)
            while server.openConnections.isEmpty { try await ContinuousClock().sleep(for: .milliseconds(10)) }
            server.resetAll()
            await #expect(throws: TransportError.reset(errno: "ECONNRESET")) { try await connection.receive() }
        }
    }

    @Test("a frozen server answers no ping and echoes nothing; thawed, both arrive")
    func freezeAndThaw() async throws {
        try await ServerHarness.with { server in
            let connection = try await Self.open(server)
            server.freeze()
            try await connection.send(.text("held"))
            let answered = await withTaskGroup(of: Bool.self) { group in
                group.addTask { (try? await connection.receive()) != nil }
                group.addTask {
                    try? await ContinuousClock().sleep(for: .milliseconds(500))
                    return false
                }
                let first = await group.next() ?? false
                group.cancelAll()
                return first
            }
            #expect(!answered, "a frozen server answered")
            server.thaw()
            #expect(try await connection.receive() == .message(.text("held")))
        }
    }

    @Test("refused connections get ECONNREFUSED; accepted again on the same port")
    func refuse() async throws {
        try await ServerHarness.with { server in
            try server.refuseConnections(true)
            await #expect(throws: TransportError.refused) { try await Self.open(server) }
            try server.refuseConnections(false)
            try await ServerTests.assertServing(server)
        }
    }

    @Test("failed handshakes carry the status; hung ones time out on the client; both recover")
    func handshakeFaults() async throws {
        try await ServerHarness.with { server in
            server.failHandshakes(status: 503)
            await #expect(throws: TransportError.handshakeRejected(status: 503)) { try await Self.open(server) }
            server.failHandshakes(status: nil)
            server.hangHandshakes(true)
            await #expect(throws: TransportError.reset(errno: "ETIMEDOUT")) {
                try await Self.open(server, timeout: .milliseconds(500))
            }
            server.hangHandshakes(false)
            try await ServerTests.assertServing(server)
        }
    }

    @Test("accept-then-close: the handshake completes and the close with the code follows at once")
    func acceptThenClose() async throws {
        try await ServerHarness.with { server in
            server.acceptThenClose(code: .goingAway, reason: "flap")
            let connection = try await Self.open(server)
            #expect(try await connection.receive() == .closed(code: .goingAway, reason: "flap"))
        }
    }

    @Test("latency delays the echo by at least the one-way delay")
    func latency() async throws {
        try await ServerHarness.with { server in
            let connection = try await Self.open(server)
            server.setLatency(.milliseconds(300))
            let start = ContinuousClock.now
            try await connection.send(.text("slow"))
            #expect(try await connection.receive() == .message(.text("slow")))
            #expect(start.duration(to: .now) >= .milliseconds(300))
        }
    }
}
