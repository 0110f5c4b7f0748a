import Foundation
import LiveConnection
import TestScheduling
import Testing

@testable import LiveTestServer
@testable import WebSocketTransport

/// `WebSocketProxy` in front of a real Python `websockets` server (`Peers/echo_server.py`).
@Suite(
    "Fault proxy in front of the Python websockets server", .waitsOnPeers, PeerServer.enabledTrait,
    .timeLimit(.minutes(2)))
struct ProxyPeerTests {
    /// A proxy in front of the shared Python echo server.
    static func withPythonUpstream(
        log: ProxyEventLog? = nil, _ body: @escaping @Sendable (WebSocketProxy) async throws -> Void
    ) async throws {
        let server = try await SharedPeers.echo
        try await ProxyHarness.with(upstream: server.url("/"), log: log) { proxy in
            try await proxy.checkUpstream()
            try await body(proxy)
        }
    }

    @Test("messages pass both ways; the server's pings reach the client and its pong goes back")
    func relays() async throws {
        try await Self.withPythonUpstream { proxy in
            let client = try await ProxyHarness.open(proxy, client: "a")
            let binary = Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0) })
            #expect(try await ProxyHarness.echoes(client, "héllo"))
            try await client.send(.binary(binary))
            #expect(try await client.receive() == .message(.binary(binary)))
            // The server pings; our client answers through the proxy; the server reports the pong.
            try await client.send(.text("!ping through"))
            #expect(try await client.receive() == .message(.text("pong through")))
            // The client's own ping is answered by the server.
            try await client.pingRoundTrip(1)
        }
    }

    @Test("the request reaches the server with the client's headers; the server's close reaches the client")
    func requestAndClose() async throws {
        try await Self.withPythonUpstream { proxy in
            let client = try await ProxyHarness.transport.open(
                Endpoint(
                    url: URL(string: "ws://127.0.0.1:\(proxy.port)/?client=a&v=2")!,
                    headers: [.init("Authorization", "Bearer abc")]))
            try await client.send(.text("!headers"))
            guard case .message(.text(let json)) = try await client.receive() else {
                Issue.record("no headers answer")
                return
            }
            // Header names are case-insensitive; the proxy passes them on lower-cased, as it read them.
            #expect(json.lowercased().contains(#"["authorization", "bearer abc"]"#), "\(json)")
            #expect(!json.lowercased().contains("sec-websocket-extensions"), "\(json)")
            try await client.send(.text("!close 4001 token expired"))
            #expect(try await client.receive() == .closed(code: 4001, reason: "token expired"))
        }
    }

    @Test("freeze and close 4003 aimed at one client; a second client is untouched throughout")
    func faultsOnOneClient() async throws {
        let log = ProxyEventLog()
        try await Self.withPythonUpstream(log: log) { proxy in
            let target = try await ProxyHarness.open(proxy, client: "a")
            let other = try await ProxyHarness.open(proxy, client: "b")
            try await ProxyHarness.waitForOpen(proxy, count: 2)
            proxy.freeze(.client("a"))
            try await target.send(.text("held"))
            let whileFrozen = await within(.milliseconds(500)) { try await target.receive() }
            #expect(whileFrozen == nil, "a frozen client's message came back")
            #expect(try await ProxyHarness.echoes(other, "flowing"))
            proxy.thaw(.client("a"))
            #expect(try await target.receive() == .message(.text("held")))
            proxy.close(.client("a"), code: 4003, reason: "forbidden")
            #expect(try await target.receive() == .closed(code: 4003, reason: "forbidden"))
            #expect(try await ProxyHarness.echoes(other, "still flowing"))
        }
        #expect(log.kinds(of: "a").contains(.fault("freeze")))
        #expect(log.kinds(of: "a").contains(.closed(by: .proxy, code: 4003, reason: "forbidden")))
        #expect(!log.kinds(of: "b").contains { if case .fault = $0 { true } else { false } })
    }

    @Test("the server's refusal status and its reset reach the client as they happened")
    func refusalAndReset() async throws {
        try await Self.withPythonUpstream { proxy in
            await #expect(throws: TransportError.handshakeRejected(status: 403)) {
                // Named by a header: the peer reads its status from the whole target, query included.
                _ = try await ProxyHarness.transport.open(
                    Endpoint(
                        url: URL(string: "ws://127.0.0.1:\(proxy.port)/reject/403")!,
                        headers: [.init("X-Livesim-Client", "a")]))
            }
            let client = try await ProxyHarness.open(proxy, client: "a")
            try await client.send(.text("!reset"))
            await #expect(throws: TransportError.reset(errno: "ECONNRESET")) { _ = try await client.receive() }
        }
    }
}
