import Foundation
import LiveConnection
import TestScheduling
import Testing

@testable import LiveTestServer
@testable import WebSocketTransport

/// The proxy's admin endpoint, driven over plain HTTP as a test in another language would.
@Suite("Fault proxy admin endpoint", .waitsOnPeers, .timeLimit(.minutes(2)))
struct ProxyAdminTests {
    static func request(_ port: UInt16, _ method: String, _ target: String, headers: [String]? = nil) async throws
        -> (Int, String)
    {
        try await AdminEndpointTests.request(port, method, target, headers: headers)
    }

    @Test("faults aimed at one client by client=ID, the open connections listed, and clear errors")
    func routes() async throws {
        try await ProxyHarness.withEchoUpstream { _, proxy in
            let admin = try AdminEndpoint.server(controlling: proxy)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await admin.run() }
                let a = try await ProxyHarness.open(proxy, client: "a")
                let b = try await ProxyHarness.open(proxy, client: "b")
                try await ProxyHarness.waitForOpen(proxy, count: 2)
                let port = admin.port
                #expect(
                    try await Self.request(port, "GET", "/connections") == (
                        200, #"{"connections":[{"id":1,"client":"a"},{"id":2,"client":"b"}]}"# + "\n"
                    ))
                #expect(try await Self.request(port, "POST", "/freeze?client=a") == (200, "ok\n"))
                try await a.send(.text("held"))
                #expect(await within(.milliseconds(300)) { try await a.receive() } == nil)
                #expect(try await ProxyHarness.echoes(b, "flowing"))
                #expect(try await Self.request(port, "POST", "/thaw?client=a") == (200, "ok\n"))
                #expect(try await a.receive() == .message(.text("held")))
                #expect(
                    try await Self.request(port, "POST", "/close?code=4003&reason=forbidden&client=a") == (200, "ok\n"))
                #expect(try await a.receive() == .closed(code: 4003, reason: "forbidden"))
                #expect(try await ProxyHarness.echoes(b, "untouched"))
                // Errors: fixed texts, nothing echoed.
                #expect(try await Self.request(port, "POST", "/refuse?on=true&client=a").0 == 400)
                #expect(try await Self.request(port, "POST", "/freeze?client=two%20words").0 == 400)
                #expect(try await Self.request(port, "POST", "/latency?ms=-1&client=b").0 == 400)
                #expect(try await Self.request(port, "POST", "/slice?bytes=0&ms=1").0 == 400)
                #expect(try await Self.request(port, "GET", "/freeze").0 == 405)
                let (status, body) = try await Self.request(port, "POST", "/broadcast?topic=t&text=x")
                #expect(status == 404 && body.contains("/slice"), "\(body)")
                // The same access rules as serve's endpoint: a rebound name is refused.
                #expect(
                    try await Self.request(port, "POST", "/reset", headers: ["Host: evil.example:\(port)"]).0 == 403)
                // a's close handshake may still be finishing: /stats counts it open until it has.
                try await ProxyHarness.waitUntil { proxy.openConnections.count == 1 }
                let (_, stats) = try await Self.request(port, "GET", "/stats")
                #expect(stats.contains(#""open":1"#) && stats.contains(#""forbidden":1"#), "\(stats)")
                group.cancelAll()
            }
        }
    }
}
