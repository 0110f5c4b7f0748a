import Foundation
import LiveConnection
import LiveServerContract
import LiveTestServer
import TestScheduling
import Testing

@testable import WebSocketTransport

/// The live test server's admin endpoint, driven over plain HTTP as a test in another
/// language would, observed by our client.
@Suite("Live test server admin endpoint", .waitsOnPeers, .timeLimit(.minutes(2)))
struct AdminEndpointTests {
    /// One HTTP request on a raw socket; returns the status code and the body.
    static func request(_ port: UInt16, _ method: String, _ target: String) async throws -> (Int, String) {
        let socket = try await TCPSocket.connect(host: "127.0.0.1", port: port, until: .now + .seconds(60))
        try await socket.write(
            Array("\(method) \(target) HTTP/1.1\r\nHost: x\r\n\r\n".utf8), until: .now + .seconds(60))
        var received: [UInt8] = []
        while true {
            let bytes = try await socket.read(maximum: 4096, until: .now + .seconds(60))
            if bytes.isEmpty { break }
            received += bytes
        }
        let (head, consumed) = try #require(try HTTPHead.parse(received, limit: 1 << 16))
        let status = Int(head.startLine.split(separator: " ")[1]) ?? 0
        return (status, String(decoding: received[consumed...], as: UTF8.self))
    }

    @Test("broadcast, subscriptions, close with code and reason, and clear errors for bad requests")
    func routes() async throws {
        let live = try LiveTestServer(configuration: .init())
        let admin = try WebSocketServer(configuration: .init(), handler: AdminEndpoint(controlling: live))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await live.run() }
            group.addTask { await admin.run() }
            group.addTask {
                try await ContinuousClock().sleep(for: .seconds(60))
                throw ServerHarness.TimedOut()
            }
            let client = try await WebSocketTransport(configuration: .init(connectTimeout: peerConnectTimeout)).open(
                Endpoint(url: URL(string: "ws://127.0.0.1:\(live.port)/live")!))
            try await client.send(.text(#"{"type":"subscribe","topic":"loans"}"#))
            // The subscription is in once the server's log shows it.
            while try await Self.request(admin.port, "GET", "/subscriptions").1.contains("1:loans") == false {
                try await ContinuousClock().sleep(for: .milliseconds(20))
            }
            #expect(
                try await Self.request(admin.port, "GET", "/subscriptions") == (
                    200, #"{"log":["1:loans"],"connections":{"1":["loans"]}}"# + "\n"
                ))
            #expect(
                try await Self.request(admin.port, "POST", "/broadcast?topic=loans&text=h%C3%A9llo") == (
                    200, #"{"seq":1}"# + "\n"
                ))
            #expect(try await client.receive() == .message(.text(#"{"seq":1,"topic":"loans","text":"héllo"}"#)))
            #expect(try await Self.request(admin.port, "POST", "/latency?ms=-5").0 == 400)
            // The idle timeout: 1 ms to 1 h, or none.
            for bad in ["0", "3600001", "abc", ""] {
                #expect(try await Self.request(admin.port, "POST", "/idle-timeout?ms=\(bad)").0 == 400, "ms=\(bad)")
            }
            #expect(live.server.idleTimeout == nil)
            #expect(try await Self.request(admin.port, "POST", "/idle-timeout?ms=600000") == (200, "ok\n"))
            #expect(live.server.idleTimeout == .seconds(600))
            #expect(try await Self.request(admin.port, "POST", "/idle-timeout?ms=none") == (200, "ok\n"))
            #expect(live.server.idleTimeout == nil)
            #expect(try await Self.request(admin.port, "POST", "/close?code=1005").0 == 400)
            #expect(try await Self.request(admin.port, "GET", "/freeze").0 == 405)
            #expect(try await Self.request(admin.port, "POST", "/nothing").0 == 404)
            #expect(
                try await Self.request(admin.port, "POST", "/close?code=4001&reason=token%20expired") == (200, "ok\n"))
            #expect(try await client.receive() == .closed(code: .tokenExpired, reason: "token expired"))
            group.cancelAll()
        }
    }

    @Test(
        "a subscribe spelled as Python spells JSON works; an unreadable contract frame gets an error frame and a counter"
    )
    func contractFramesAsJSON() async throws {
        let live = try LiveTestServer(configuration: .init())
        let admin = try WebSocketServer(configuration: .init(), handler: AdminEndpoint(controlling: live))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await live.run() }
            group.addTask { await admin.run() }
            group.addTask {
                try await ContinuousClock().sleep(for: .seconds(60))
                throw ServerHarness.TimedOut()
            }
            let client = try await WebSocketTransport(configuration: .init(connectTimeout: peerConnectTimeout)).open(
                Endpoint(url: URL(string: "ws://127.0.0.1:\(live.port)/live")!))
            // json.dumps({"type": "subscribe", "topic": "loans"}) with the keys the other way round.
            try await client.send(.text(#"{"topic": "loans", "type": "subscribe"}"#))
            try await client.send(.text(#"{"type": "resume", "after": -3}"#))
            let refusal = try await client.receive()
            #expect(
                refusal
                    == .message(
                        LiveContract.errorFrame(
                            #"resume needs "after": a non-negative integer (the last sequence number received)"#)))
            while try await Self.request(admin.port, "GET", "/subscriptions").1.contains("1:loans") == false {
                try await ContinuousClock().sleep(for: .milliseconds(20))
            }
            #expect(try await Self.request(admin.port, "POST", "/broadcast?topic=loans&text=hi").0 == 200)
            #expect(try await client.receive() == .message(.text(#"{"seq":1,"topic":"loans","text":"hi"}"#)))
            #expect(try await Self.request(admin.port, "GET", "/stats").1.contains(#""refusedFrames":1"#))
            group.cancelAll()
        }
    }
}
