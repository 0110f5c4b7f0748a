import Foundation
import LiveConnection
import LiveServerContract
import TestScheduling
import Testing

@testable import LiveTestServer
@testable import WebSocketTransport

/// The live test server's admin endpoint, driven over plain HTTP as a test in another
/// language would, observed by our client.
@Suite("Live test server admin endpoint", .waitsOnPeers, .timeLimit(.minutes(2)))
struct AdminEndpointTests {
    /// One HTTP exchange on a raw socket: `bytes` out, then everything until the server
    /// closes; returns the status code, the head and the body. Every wait has a deadline.
    static func exchange(
        _ port: UInt16, _ bytes: [UInt8], within limit: Duration = .seconds(60),
        pausingPer256KiB pause: Duration = .zero
    ) async throws -> (status: Int, head: HTTPHead, body: String) {
        let deadline = ContinuousClock.now + limit
        let socket = try await TCPSocket.connect(host: "127.0.0.1", port: port, until: deadline)
        try await socket.write(bytes, until: deadline)
        var received: [UInt8] = []
        while true {
            let bytes = try await socket.read(maximum: 65_536, until: deadline)
            if bytes.isEmpty { break }
            if pause > .zero, received.count / 262_144 != (received.count + bytes.count) / 262_144 {
                try await ContinuousClock().sleep(for: pause)
            }
            received += bytes
        }
        let (head, consumed) = try #require(try HTTPHead.parse(received, limit: 1 << 16))
        let status = Int(head.startLine.split(separator: " ")[1]) ?? 0
        guard head.values(of: "transfer-encoding") == ["chunked"] else {
            return (status, head, String(decoding: received[consumed...], as: UTF8.self))
        }
        let body = try #require(dechunked(received[consumed...]), "a chunked body without its last chunk: cut off")
        return (status, head, String(decoding: body, as: UTF8.self))
    }

    /// A chunked body's bytes; nil unless it ends with the last (empty) chunk.
    static func dechunked(_ bytes: ArraySlice<UInt8>) -> [UInt8]? {
        var body: [UInt8] = []
        var rest = bytes
        while let lineEnd = rest.firstIndex(of: 13), rest.index(after: lineEnd) < rest.endIndex {
            guard let size = Int(String(decoding: rest[..<lineEnd], as: UTF8.self), radix: 16) else { return nil }
            let start = lineEnd + 2
            guard rest.endIndex >= start + size + 2 else { return nil }
            if size == 0 { return body }
            body += rest[start..<(start + size)]
            rest = rest[(start + size + 2)...]
        }
        return nil
    }

    /// One HTTP request addressed as curl addresses it (`Host: 127.0.0.1:PORT`) unless
    /// `headers` say otherwise; returns the status code and the body.
    static func request(
        _ port: UInt16, _ method: String, _ target: String, headers: [String]? = nil, body: String = ""
    ) async throws -> (Int, String) {
        let lines = headers ?? ["Host: 127.0.0.1:\(port)"]
        let length = body.isEmpty ? [] : ["Content-Length: \(body.utf8.count)"]
        let text = "\(method) \(target) HTTP/1.1\r\n" + (lines + length).map { $0 + "\r\n" }.joined() + "\r\n" + body
        let answer = try await exchange(port, Array(text.utf8))
        return (answer.status, answer.body)
    }

    /// A live test server and its admin endpoint, served while `body` runs (60 s at most).
    static func withAdmin(
        token: String? = nil, _ body: (LiveTestServer, WebSocketServer) async throws -> Void
    ) async throws {
        let live = try LiveTestServer(configuration: .init())
        let admin = try AdminEndpoint.server(controlling: live, token: token)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await live.run() }
            group.addTask { await admin.run() }
            group.addTask {
                try await ContinuousClock().sleep(for: .seconds(60))
                throw ServerHarness.TimedOut()
            }
            try await body(live, admin)
            group.cancelAll()
        }
    }

    @Test("broadcast, subscriptions, close with code and reason, and clear errors for bad requests")
    func routes() async throws {
        try await Self.withAdmin { live, admin in
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
        }
    }

    @Test(
        "a subscribe spelled as Python spells JSON works; an unreadable contract frame gets an error frame and a counter"
    )
    func contractFramesAsJSON() async throws {
        try await Self.withAdmin { live, admin in
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
        }
    }

    @Test("a request naming another Host, or sent by a page of another Origin, is refused with 403 and not obeyed")
    func hostAndOrigin() async throws {
        try await Self.withAdmin { live, admin in
            let port = admin.port
            let own = "Host: 127.0.0.1:\(port)"
            // DNS rebinding: the browser names the attacker's host.
            let rebound = try await Self.request(port, "POST", "/freeze", headers: ["Host: evil.example:\(port)"])
            #expect(rebound.0 == 403 && !rebound.1.contains("evil"), "\(rebound)")
            for host in ["127.0.0.1", "127.0.0.1:1", "localhost.evil.example:\(port)", "127.0.0.1:\(port)x"] {
                #expect(try await Self.request(port, "POST", "/freeze", headers: ["Host: \(host)"]).0 == 403, "\(host)")
            }
            #expect(try await Self.request(port, "POST", "/freeze", headers: []).0 == 400)
            // CSRF: a page elsewhere posts to the endpoint.
            for origin in ["http://evil.example", "null", "https://127.0.0.1:\(port)", "http://127.0.0.1:\(port).evil"]
            {
                let answer = try await Self.request(port, "POST", "/freeze", headers: [own, "Origin: \(origin)"])
                #expect(answer.0 == 403 && !answer.1.contains("evil"), "Origin \(origin): \(answer)")
            }
            #expect(!live.server.isFrozen)
            // Its own page, and the loopback name.
            #expect(
                try await Self.request(port, "POST", "/freeze", headers: [own, "Origin: http://127.0.0.1:\(port)"])
                    == (200, "ok\n"))
            #expect(live.server.isFrozen)
            #expect(
                try await Self.request(
                    port, "POST", "/thaw", headers: ["Host: LOCALHOST:\(port)", "Origin: http://localhost:\(port)"])
                    == (200, "ok\n"))
            #expect(!live.server.isFrozen)
            let stats = try await Self.request(port, "GET", "/stats").1
            #expect(stats.contains(#""forbidden":9"#), "\(stats)")
        }
    }

    @Test("with a token, a request without it or with another is refused with 401; with it, obeyed")
    func bearerToken() async throws {
        try await Self.withAdmin(token: "s3cret-T0ken") { live, admin in
            let port = admin.port
            let own = "Host: 127.0.0.1:\(port)"
            let missing = try await Self.exchange(port, Array("POST /freeze HTTP/1.1\r\n\(own)\r\n\r\n".utf8))
            #expect(missing.status == 401 && missing.head.values(of: "www-authenticate") == ["Bearer"])
            for wrong in [
                "Bearer s3cret-T0ke", "Bearer s3cret-T0kenX", "Basic s3cret-T0ken", "Bearer S3CRET-T0KEN", "Bearer",
            ] {
                let answer = try await Self.request(port, "POST", "/freeze", headers: [own, "Authorization: \(wrong)"])
                #expect(answer.0 == 401 && !answer.1.contains("s3cret"), "\(wrong): \(answer)")
            }
            #expect(!live.server.isFrozen)
            #expect(
                try await Self.request(port, "POST", "/freeze", headers: [own, "Authorization: Bearer s3cret-T0ken"])
                    == (200, "ok\n"))
            #expect(live.server.isFrozen)
            // The Host rule still comes first: the token does not make a rebound request ours.
            #expect(
                try await Self.request(
                    port, "POST", "/thaw", headers: ["Host: evil.example", "Authorization: Bearer s3cret-T0ken"]
                ).0 == 403)
            let stats = try await Self.request(
                port, "GET", "/stats", headers: [own, "Authorization: bearer s3cret-T0ken"])
            #expect(stats.0 == 200 && stats.1.contains(#""unauthorized":6"#), "\(stats)")
        }
    }

    @Test("paths match exactly: no normalisation, and error bodies echo nothing the client sent")
    func exactPaths() async throws {
        try await Self.withAdmin { live, admin in
            let port = admin.port
            #expect(try await Self.request(port, "POST", "/freeze") == (200, "ok\n"))
            for target in ["//evil/thaw", "/thaw/", "/./thaw", "/%2Fthaw", "/%74haw", "/evil/../thaw", "/THAW"] {
                let answer = try await Self.request(port, "POST", target)
                #expect(answer.0 == 404 && !answer.1.contains("evil"), "\(target): \(answer)")
            }
            #expect(live.server.isFrozen)
            for target in [
                "/%3Cscript%3Ealert(1)%3C/script%3E", "/<script>alert(1)</script>", "/x%0D%0ASet-Cookie:%20a=b",
            ] {
                let answer = try await Self.request(port, "GET", target)
                #expect(answer.0 == 404, "\(target): \(answer)")
                #expect(!answer.1.contains("<script>") && !answer.1.contains("Set-Cookie"), "\(target): \(answer)")
            }
            let bad = try await Self.request(port, "POST", "/latency?ms=%3Cscript%3E")
            #expect(bad.0 == 400 && !bad.1.contains("script"), "\(bad)")
            let unparsable = try await Self.request(
                port, "GET", "/stats", headers: ["Host: 127.0.0.1:\(port)", "<script>"])
            #expect(unparsable.0 == 400 && !unparsable.1.contains("<script>"), "\(unparsable)")
            let undecodable = try await Self.request(port, "POST", "/latency?ms=%zz")
            #expect(undecodable.0 == 400 && !undecodable.1.contains("zz"), "\(undecodable)")
        }
    }

    @Test("100 idle sockets do not lock the admin out: a request is answered before a 2 s deadline")
    func idleSockets() async throws {
        try await Self.withAdmin { live, admin in
            var idle: [TCPSocket] = []
            defer { for socket in idle { socket.shutdown() } }
            for _ in 0..<100 {
                idle.append(
                    try await TCPSocket.connect(host: "127.0.0.1", port: admin.port, until: .now + .seconds(60)))
            }
            // Every idle socket taken in (a loaded machine accepts them later than they
            // connect, and times the first out while it takes the last): of 100 idlers in 64
            // places, 36 went, each counted as evicted or timed out.
            try await ProxyHarness.waitUntil { admin.statistics.accepted >= 100 }
            let request = Array("GET /stats HTTP/1.1\r\nHost: 127.0.0.1:\(admin.port)\r\n\r\n".utf8)
            let answer = try await Self.exchange(admin.port, request, within: .seconds(2))
            #expect(answer.status == 200, "\(answer)")
            let statistics = admin.statistics
            #expect(statistics.evictedIdle + statistics.handshakeTimeouts >= 36, "\(statistics)")
        }
    }

    @Test("a large GET /subscriptions arrives whole, with its length, and parses")
    func largeSubscriptions() async throws {
        try await Self.withAdmin { live, admin in
            let connections = 20
            let topics = 1_000
            var clients: [WebSocketConnection] = []
            for _ in 0..<connections {
                clients.append(
                    try await WebSocketTransport(configuration: .init(connectTimeout: peerConnectTimeout)).open(
                        Endpoint(url: URL(string: "ws://127.0.0.1:\(live.port)/live")!)))
            }
            let padding = String(repeating: "p", count: 400)
            for (index, client) in clients.enumerated() {
                for topic in 0..<topics {
                    try await client.send(.text(#"{"type":"subscribe","topic":"c\#(index)-\#(padding)-\#(topic)"}"#))
                }
            }
            // Every subscribe is in once each connection lists all its topics (60 s at most: withAdmin).
            while (1...connections).contains(where: { live.topics(of: $0).count < topics }) {
                try await ContinuousClock().sleep(for: .milliseconds(50))
            }
            let request = Array("GET /subscriptions HTTP/1.1\r\nHost: 127.0.0.1:\(admin.port)\r\n\r\n".utf8)
            // The client reads steadily but slowly (0.5 s per 256 KiB: about 16 s for 8 MB), past the
            // admin's 5 s deadline: an answer written against one deadline (as before) is cut;
            // one with a deadline per write, renewed as the client reads, arrives whole.
            let answer = try await Self.exchange(admin.port, request, pausingPer256KiB: .milliseconds(500))
            #expect(answer.status == 200)
            // Made while written, a chunk per connection; `exchange` requires the last chunk.
            #expect(answer.head.values(of: "transfer-encoding") == ["chunked"])
            #expect(answer.body.utf8.count > 8_000_000, "\(answer.body.utf8.count) bytes")
            let json = try #require(
                try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any])
            let lists = try #require(json["connections"] as? [String: [String]])
            #expect(lists.count == connections && lists.values.allSatisfy { $0.count == topics })
            for client in clients { await client.close(code: .normal, reason: "") }
        }
    }

    @Test("a chunked or stalled body gets the admin's own answer (411, 408), not a WebSocket refusal")
    func bodies() async throws {
        try await Self.withAdmin { live, admin in
            let port = admin.port
            let chunked = try await Self.exchange(
                port,
                Array(
                    "POST /freeze HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"
                        .utf8))
            #expect(chunked.status == 411 && !chunked.body.contains("GET"), "\(chunked)")
            #expect(!live.server.isFrozen)
            // Three bytes of ten, then nothing: answered 408 at the admin's 5 s deadline.
            let stalled = try await Self.exchange(
                port, Array("POST /freeze HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Length: 10\r\n\r\nabc".utf8))
            #expect(stalled.status == 408 && !stalled.body.contains("GET"), "\(stalled)")
            for length in ["-1", "1x", "99999999999999999999"] {
                let answer = try await Self.request(
                    port, "POST", "/freeze", headers: ["Host: 127.0.0.1:\(port)", "Content-Length: \(length)"])
                #expect(answer.0 == 400 || answer.0 == 413, "Content-Length \(length): \(answer)")
            }
            #expect(!live.server.isFrozen)
            #expect(admin.statistics.badBodies == 5)
        }
    }

    /// (bound host, port, the Host a request names, accepted)
    static let addresses: [(String, UInt16, String, Bool)] = [
        ("127.0.0.1", 9011, "127.0.0.1:9011", true), ("127.0.0.1", 9011, "LocalHost:9011", true),
        ("127.0.0.1", 9011, "127.0.0.1", false), ("127.0.0.1", 9011, "127.0.0.2:9011", false),
        ("127.0.0.1", 9011, "[::1]:9011", false), ("127.0.0.1", 9011, "localhost.:9011", false),
        ("127.0.0.1", 80, "127.0.0.1", true), ("127.0.0.1", 80, "localhost", true),
        ("::1", 9011, "[::1]:9011", true), ("::1", 9011, "localhost:9011", true), ("::1", 9011, "::1:9011", false),
        ("10.0.0.5", 9011, "10.0.0.5:9011", true), ("10.0.0.5", 9011, "localhost:9011", false),
        ("0.0.0.0", 9011, "192.168.1.20:9011", true), ("0.0.0.0", 9011, "localhost:9011", true),
        ("0.0.0.0", 9011, "[fe80::1]:9011", true), ("0.0.0.0", 9011, "192.168.1.20:9012", false),
        ("0.0.0.0", 9011, "192.168.1.20", false), ("0.0.0.0", 9011, "evil.example:9011", false),
        ("0.0.0.0", 9011, "1.2.3.4:9011:9011", false), ("::", 9011, "[::1]:9011", true),
        ("::", 9011, "[evil]:9011", false),
    ]

    @Test(
        "the Host rule: the bound literal with its port, localhost on loopback, any literal on a wildcard, never a name",
        arguments: addresses)
    func hostRule(host: String, port: UInt16, authority: String, accepted: Bool) {
        #expect(AdminAccess(host: host, port: port, token: nil).accepts(authority: authority) == accepted)
    }

    @Test("the token comparison: equal only when every byte and the length are")
    func tokenComparison() {
        let token = Array("s3cret-T0ken".utf8)
        #expect(AdminAccess.constantTimeEqual(token, token))
        for other in ["", "s3cret-T0ke", "s3cret-T0ken!", "t3cret-T0ken", "s3cret-T0kem"] {
            #expect(!AdminAccess.constantTimeEqual(Array(other.utf8), token), "\(other)")
        }
    }
}
