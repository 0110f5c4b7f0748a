import Foundation
import LiveConnection
import TestScheduling
import Testing

@testable import LiveTestServer
@testable import WebSocketTransport

/// `WebSocketProxy` in front of our own `WebSocketServer` in echo mode, observed by our client.
@Suite("Fault proxy in front of our echo server", .waitsOnPeers, .timeLimit(.minutes(2)))
struct ProxyTests {
    @Test("messages of every length class pass both ways, text and binary, and pings reach the upstream")
    func relays() async throws {
        let log = ProxyEventLog()
        try await ProxyHarness.withEchoUpstream(log: log) { server, proxy in
            let client = try await ProxyHarness.open(proxy, client: "a")
            for length in [0, 1, 125, 126, 65_535, 65_536, 300_000] {
                let text = String(repeating: "é", count: length / 2)
                let binary = Data((0..<length).map { UInt8(truncatingIfNeeded: $0 &* 7) })
                try await client.send(.text(text))
                try await client.send(.binary(binary))
                #expect(try await client.receive() == .message(.text(text)), "length \(length)")
                #expect(try await client.receive() == .message(.binary(binary)), "length \(length)")
            }
            // The pong comes from the upstream, not the proxy: with the upstream frozen, none comes.
            server.freeze()
            let unanswered: Void? = await within(.milliseconds(500)) { try await Self.ping(client, 1) }
            #expect(unanswered == nil, "a frozen upstream answered a ping: the proxy answered it itself")
            server.thaw()
            try await Self.ping(client, 2)
            await client.close(code: .normal, reason: "done")
            try await ProxyHarness.waitUntil {
                log.kinds(of: "a").contains { if case .ended = $0 { true } else { false } }
            }
        }
        let kinds = log.kinds(of: "a")
        #expect(kinds.first == .attempt(resource: "/?client=a", address: kinds.first.flatMap(Self.address) ?? ""))
        #expect(kinds.contains(.handshake(status: 101)) && kinds.contains(.opened))
        #expect(kinds.contains(.frame(.received, .client, opcode: .text, size: 300_000)))
        #expect(kinds.contains(.frame(.sent, .upstream, opcode: .binary, size: 300_000)))
        #expect(kinds.contains(.frame(.sent, .client, opcode: .text, size: 300_000)))
        #expect(kinds.contains(.frame(.received, .upstream, opcode: .pong, size: 8)))
        #expect(kinds.contains(.closed(by: .client, code: .normal, reason: "done")))
        #expect(kinds.contains(.closed(by: .upstream, code: .normal, reason: "")))
        #expect(kinds.last == .ended("closed"), "\(kinds.suffix(3))")
    }

    /// Pings and reads until the pong comes back through the proxy.
    static func ping(_ client: WebSocketConnection, _ number: UInt64) async throws {
        try await client.pingRoundTrip(number)
    }

    static func address(of kind: ProxyEvent.Kind) -> String? {
        if case .attempt(_, let address) = kind { return address }
        return nil
    }

    @Test("a freeze aimed at one client holds its frames until thaw; another client flows meanwhile")
    func freezeOneClient() async throws {
        try await ProxyHarness.withEchoUpstream { _, proxy in
            let frozen = try await ProxyHarness.open(proxy, client: "a")
            let other = try await ProxyHarness.open(proxy, client: "b")
            try await ProxyHarness.waitForOpen(proxy, count: 2)
            proxy.freeze(.client("a"))
            try await frozen.send(.text("held"))
            #expect(try await ProxyHarness.echoes(other, "flowing"))
            try await other.send(.text("again"))
            async let otherReceives = other.receive()
            let pongWhileFrozen = await within(.milliseconds(500)) { try await frozen.receive() }
            #expect(pongWhileFrozen == nil, "a frozen client's message came back")
            #expect(try await otherReceives == .message(.text("again")))
            proxy.thaw(.client("a"))
            #expect(try await frozen.receive() == .message(.text("held")))
            #expect(try await ProxyHarness.echoes(frozen, "thawed"))
        }
    }

    @Test("close 4003 aimed at one client closes it with that code; another client is untouched")
    func closeOneClient() async throws {
        let log = ProxyEventLog()
        try await ProxyHarness.withEchoUpstream(log: log) { server, proxy in
            let closed = try await ProxyHarness.open(proxy, client: "a")
            let other = try await ProxyHarness.open(proxy, client: "b")
            try await ProxyHarness.waitForOpen(proxy, count: 2)
            proxy.close(.client("a"), code: 4003, reason: "forbidden")
            #expect(try await closed.receive() == .closed(code: 4003, reason: "forbidden"))
            #expect(try await ProxyHarness.echoes(other, "still here"))
            // The upstream saw the proxy's going-away close on a's connection only.
            try await ProxyHarness.waitUntil {
                proxy.openConnections.map(\.client) == ["b"] && server.openConnections.count == 1
            }
        }
        #expect(log.kinds(of: "a").contains(.fault("close 4003 forbidden")))
        #expect(log.kinds(of: "a").contains(.closed(by: .proxy, code: 4003, reason: "forbidden")))
        #expect(
            log.kinds(of: "a").contains {
                if case .frame(.sent, .upstream, .close, _) = $0 { true } else { false }
            })
        #expect(!log.kinds(of: "b").contains { if case .fault = $0 { true } else { false } })
    }

    @Test("reset aimed at one client drops it without a close frame; another client is untouched")
    func resetOneClient() async throws {
        try await ProxyHarness.withEchoUpstream { _, proxy in
            let reset = try await ProxyHarness.open(proxy, client: "a")
            let other = try await ProxyHarness.open(proxy, client: "b")
            try await ProxyHarness.waitForOpen(proxy, count: 2)
            proxy.reset(.client("a"))
            await #expect(throws: TransportError.self) { _ = try await reset.receive() }
            #expect(try await ProxyHarness.echoes(other, "untouched"))
            #expect(proxy.statistics.resets == 1)
        }
    }

    @Test("handshake faults aim at one client: a status, accept-then-close; the client's identity from a header")
    func handshakeFaults() async throws {
        try await ProxyHarness.withEchoUpstream { _, proxy in
            proxy.failHandshakes(.client("a"), status: 503)
            await #expect(throws: TransportError.handshakeRejected(status: 503)) {
                _ = try await ProxyHarness.open(proxy, client: "a")
            }
            proxy.failHandshakes(.client("a"), status: nil)
            proxy.acceptThenClose(.client("tab"), code: .goingAway, reason: "flapping")
            let flapping = try await ProxyHarness.transport.open(
                Endpoint(
                    url: URL(string: "ws://127.0.0.1:\(proxy.port)/")!, headers: [.init("X-Livesim-Client", "tab")]))
            #expect(try await flapping.receive() == .closed(code: .goingAway, reason: "flapping"))
            let fine = try await ProxyHarness.open(proxy, client: "a")
            #expect(try await ProxyHarness.echoes(fine, "opened"))
        }
    }

    @Test("hang aimed at one client leaves its handshake unanswered until lifted; refuse closes the port for all")
    func hangAndRefuse() async throws {
        try await ProxyHarness.withEchoUpstream { _, proxy in
            proxy.hangHandshakes(.client("a"), true)
            let impatient = WebSocketTransport(configuration: .init(connectTimeout: .milliseconds(300)))
            await #expect(throws: TransportError.reset(errno: "ETIMEDOUT")) {
                _ = try await impatient.open(Endpoint(url: URL(string: "ws://127.0.0.1:\(proxy.port)/?client=a")!))
            }
            #expect(try await ProxyHarness.echoes(try await ProxyHarness.open(proxy, client: "b"), "not hung"))
            proxy.hangHandshakes(.client("a"), false)
            #expect(try await ProxyHarness.echoes(try await ProxyHarness.open(proxy, client: "a"), "answered"))
            try proxy.refuseConnections(true)
            await #expect(throws: TransportError.refused) { _ = try await ProxyHarness.open(proxy, client: "c") }
            try proxy.refuseConnections(false)
            #expect(try await ProxyHarness.echoes(try await ProxyHarness.open(proxy, client: "c"), "accepted again"))
        }
    }

    @Test("latency and slicing leave every message intact; the connection's history names them")
    func latencyAndSlicing() async throws {
        let log = ProxyEventLog()
        try await ProxyHarness.withEchoUpstream(log: log) { _, proxy in
            proxy.setLatency(.client("a"), .milliseconds(20))
            proxy.setSlicing(.client("a"), Slicing(bytes: 3, pause: .zero))
            let client = try await ProxyHarness.open(proxy, client: "a")
            for index in 0..<20 {
                try await client.send(.text("message \(index) " + String(repeating: "x", count: index * 50)))
            }
            for index in 0..<20 {
                #expect(
                    try await client.receive()
                        == .message(.text("message \(index) " + String(repeating: "x", count: index * 50))))
            }
        }
        let kinds = log.kinds(of: "a")
        #expect(kinds.contains(.fault("latency 20ms")) && kinds.contains(.fault("slice 3B/0ms")), "\(kinds.prefix(4))")
    }

    @Test("the upstream's own refusal is passed on; an unreachable upstream is an error at start and a 502 later")
    func upstreamFailures() async throws {
        try await ProxyHarness.withEchoUpstream { server, proxy in
            server.failHandshakes(status: 403)
            await #expect(throws: TransportError.handshakeRejected(status: 403)) {
                _ = try await ProxyHarness.open(proxy, client: "a")
            }
            #expect(proxy.statistics.upstreamRefusals == 1)
        }
        // A port nothing listens on: 1 (binding it needs privileges, and no service uses it). A port
        // bound and closed again was taken by another test's listener when the suites run together.
        try await ProxyHarness.with(upstream: URL(string: "ws://127.0.0.1:1/live")!) { proxy in
            await #expect(throws: TransportError.refused) { try await proxy.checkUpstream() }
            await #expect(throws: TransportError.handshakeRejected(status: 502)) {
                _ = try await ProxyHarness.open(proxy, client: "a")
            }
            #expect(proxy.statistics.upstreamFailures == 1)
        }
    }

    @Test(
        "a client's identity: the client query parameter, else the X-Livesim-Client header, else its address",
        arguments: [
            ("/live?client=phone-a", [Endpoint.Header](), "phone-a"),
            ("/live?v=2&client=t%41b-2", [], "tAb-2"),
            ("/live?client=two%20words", [], "10.0.0.1:5000"),
            ("/live", [.init("x-livesim-client", "tab-2")], "tab-2"),
            ("/live?client=", [.init("x-livesim-client", "tab-2")], "tab-2"),
            ("/live", [.init("x-livesim-client", String(repeating: "x", count: 129))], "10.0.0.1:5000"),
            ("/live", [], "10.0.0.1:5000"),
        ])
    func identity(resource: String, headers: [Endpoint.Header], expected: String) {
        #expect(ClientIdentity.of(resource: resource, headers: headers, address: "10.0.0.1:5000") == expected)
    }

    @Test("the upstream path replaces the client's unless it has none; both queries are passed on")
    func upstreamResource() throws {
        let bare = try WebSocketProxy(configuration: .init(upstream: URL(string: "ws://127.0.0.1:1")!))
        #expect(bare.upstreamResource(for: "/feed?client=a") == "/feed?client=a")
        let pathed = try WebSocketProxy(configuration: .init(upstream: URL(string: "ws://127.0.0.1:1/live?v=2")!))
        #expect(pathed.upstreamResource(for: "/anything?client=a") == "/live?v=2&client=a")
        #expect(pathed.upstreamResource(for: "/") == "/live?v=2")
    }
}
