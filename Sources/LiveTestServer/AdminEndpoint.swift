import Foundation
public import LiveConnection
public import WebSocketTransport

public import typealias LiveConnection.Mutex

/// The test server's controls over plain HTTP, so a test in any language can drive it.
///
/// ```swift
/// let admin = try AdminEndpoint.server(controlling: live, host: "127.0.0.1", port: 9100, token: nil)
/// // curl -X POST 'http://127.0.0.1:9100/close?code=4001&reason=token%20expired'
/// // curl          http://127.0.0.1:9100/subscriptions
/// ```
///
/// Actions are POSTs with query parameters and answer `ok` (or a JSON body); state is read
/// with GET. It is a second ``WebSocketServer`` that answers only plain HTTP, bound to
/// loopback unless told otherwise: anyone who can reach it can reset every connection, so
/// it obeys only requests addressed to it (its own `Host`, its own `Origin`
/// if any, the bearer token if one is set; else 403 or 401), matches paths exactly, and its
/// error bodies are fixed texts that echo nothing the client sent. docs/serve.md lists every
/// route and rule.
public struct AdminEndpoint: WebSocketServerHandler {
    let controlled: Controlled
    let guardian: Guardian

    /// What the endpoint drives: the live test server (`livesim serve`) or a fault proxy
    /// (`livesim proxy`). The same access rules guard both.
    enum Controlled: Sendable {
        case live(LiveTestServer)
        case proxy(WebSocketProxy)
    }

    /// The endpoint's bound address and counters, set once its server has bound (the port is
    /// known only then).
    final class Guardian: Sendable {
        struct State {
            var access: AdminAccess?
            weak var server: WebSocketServer?
            var forbidden = 0
            var unauthorized = 0
        }
        let state = Mutex(State())
    }

    /// Binds the admin endpoint for `target` on `host:port` (0: the system picks the port).
    /// With a `token` (see ``tokenProblem(_:)``) every request needs `Authorization: Bearer
    /// TOKEN`. Idle sockets cannot lock it out: when its 64 connections are taken, the oldest
    /// one that has not sent a request head makes room.
    public static func server(
        controlling target: LiveTestServer, host: String = "127.0.0.1", port: UInt16 = 0, token: String? = nil
    ) throws(TransportError) -> WebSocketServer {
        try server(.live(target), host: host, port: port, token: token)
    }

    /// Binds the admin endpoint for a fault proxy: the same rules, the proxy's routes (each
    /// fault aimed at every connection, or at one client with `client=ID`; docs/proxy.md).
    public static func server(
        controlling proxy: WebSocketProxy, host: String = "127.0.0.1", port: UInt16 = 0, token: String? = nil
    ) throws(TransportError) -> WebSocketServer {
        try server(.proxy(proxy), host: host, port: port, token: token)
    }

    private static func server(_ controlled: Controlled, host: String, port: UInt16, token: String?)
        throws(TransportError) -> WebSocketServer
    {
        precondition(token.flatMap(tokenProblem) == nil, "check the token with AdminEndpoint.tokenProblem first")
        let endpoint = AdminEndpoint(controlled: controlled, guardian: Guardian())
        let server = try WebSocketServer(
            configuration: .init(
                host: host, port: port, handshakeTimeout: .seconds(5), maxConnections: 64,
                evictsIdleHandshakes: true),
            handler: endpoint)
        endpoint.guardian.state.withLock { state in
            state.access = AdminAccess(host: host, port: server.port, token: token)
            state.server = server
        }
        return server
    }

    /// Why `token` cannot be the admin token (1 to 256 characters of printable ASCII, no
    /// spaces), or nil when it can.
    public static func tokenProblem(_ token: String) -> String? { AdminAccess.tokenProblem(token) }

    /// True when `host` is reachable from this machine only (127.0.0.0/8, ::1, localhost).
    public static func isLoopback(_ host: String) -> Bool { AdminAccess.isLoopback(host.lowercased()) }

    public func handshake(_ request: UpgradeRequest) async -> HandshakeDecision {
        .refuse(UpgradeRefusal(status: 404, reason: "the admin endpoint speaks plain HTTP only"))
    }

    public func plainRequest(_ head: HTTPHead, body: [UInt8]) async -> HTTPResponse? {
        let parts = head.startLine.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[1].hasPrefix("/"), parts[2] == "HTTP/1.1" || parts[2] == "HTTP/1.0" else {
            return HTTPResponse(status: 400, body: "bad request line\n")
        }
        // Not yet bound: nothing is this endpoint's address yet.
        guard let access = guardian.state.withLock({ $0.access }) else {
            return HTTPResponse(status: 503, body: "not ready\n")
        }
        if let refusal = access.refusal(of: head) {
            guardian.state.withLock { state in
                if refusal.status == 403 { state.forbidden += 1 }
                if refusal.status == 401 { state.unauthorized += 1 }
            }
            return refusal
        }
        let target = parts[1]
        let path = target.prefix { $0 != "?" }
        guard let query = Self.query(target.dropFirst(path.count + 1)) else {
            return HTTPResponse(status: 400, body: "the query is not percent-encoded correctly\n")
        }
        do {
            switch controlled {
            case .live(let target): return try route(target, method: String(parts[0]), path: String(path), query: query)
            case .proxy(let proxy):
                return try proxyRoute(proxy, method: String(parts[0]), path: String(path), query: query)
            }
        } catch {
            return HTTPResponse(status: error.status, body: error.message + "\n")
        }
    }

    /// `name=value&…`, each percent-decoded; nil when one is not decodable.
    static func query(_ text: Substring) -> [String: String]? {
        var query: [String: String] = [:]
        for item in text.split(separator: "&") {
            let name = item.prefix { $0 != "=" }
            let value = item.dropFirst(name.count + 1)
            guard let name = String(name).removingPercentEncoding, let value = String(value).removingPercentEncoding
            else { return nil }
            query[name] = value
        }
        return query
    }

    struct Failure: Error {
        var status: Int
        var message: String
    }

    static let routes = [
        "POST /close?code=N&reason=R", "POST /reset", "POST /freeze", "POST /thaw", "POST /refuse?on=true|false",
        "POST /handshake-status?status=N|none", "POST /hang?on=true|false", "POST /latency?ms=N",
        "POST /idle-timeout?ms=N|none",
        "POST /restart",
        "POST /accept-then-close?code=N|none&reason=R", "POST /broadcast?topic=T&text=X", "GET /subscriptions",
        "GET /stats",
    ]

    private func route(_ target: LiveTestServer, method: String, path: String, query: [String: String])
        throws(Failure) -> HTTPResponse
    {
        let server = target.server
        // Exact paths only: `//evil/thaw`, `/thaw/`, `/./thaw` and `%2Fthaw` are not `/thaw`.
        guard Self.routes.contains(where: { $0.split(separator: " ")[1].split(separator: "?")[0] == path }) else {
            throw Failure(status: 404, message: "no such route; routes: \(Self.routes.joined(separator: ", "))")
        }
        let isRead = path == "/subscriptions" || path == "/stats"
        guard method == (isRead ? "GET" : "POST") else {
            throw Failure(status: 405, message: "\(path) takes \(isRead ? "GET" : "POST")")
        }
        switch path {
        case "/close": server.closeAll(code: try closeCode(query, "code"), reason: query["reason"] ?? "")
        case "/reset": server.resetAll()
        case "/freeze": server.freeze()
        case "/thaw": server.thaw()
        case "/refuse":
            let refuse = try flag(query, "on")
            do throws(TransportError) { try server.refuseConnections(refuse) } catch {
                throw Failure(status: 500, message: "cannot bind the port again: \(error)")
            }
        case "/handshake-status":
            if query["status"] == "none" {
                server.failHandshakes(status: nil)
            } else {
                let status = try number(query, "status", in: 200...599)
                guard status != 101 else { throw Failure(status: 400, message: "status 101 is not a refusal") }
                server.failHandshakes(status: status)
            }
        case "/hang": server.hangHandshakes(try flag(query, "on"))
        case "/latency": server.setLatency(.milliseconds(try number(query, "ms", in: 0...600_000)))
        case "/idle-timeout":
            server.setIdleTimeout(
                query["ms"] == "none" ? nil : .milliseconds(try number(query, "ms", in: 1...3_600_000)))
        case "/restart": target.restart()
        case "/accept-then-close":
            server.acceptThenClose(
                code: query["code"] == "none" ? nil : try closeCode(query, "code"), reason: query["reason"] ?? "")
        case "/broadcast":
            guard let topic = query["topic"], !topic.isEmpty, let text = query["text"] else {
                throw Failure(status: 400, message: "broadcast needs topic and text")
            }
            let sequence = target.broadcast(topic: topic, text: text)
            return HTTPResponse(status: 200, body: #"{"seq":\#(sequence)}"# + "\n", contentType: "application/json")
        case "/subscriptions":
            return subscriptionsJSON(target)
        case "/stats":
            return HTTPResponse(status: 200, body: statisticsJSON(target) + "\n", contentType: "application/json")
        default: preconditionFailure("route \(path) is listed but not handled")
        }
        return HTTPResponse(status: 200, body: "ok\n")
    }

    func number(_ query: [String: String], _ name: String, in range: ClosedRange<Int>) throws(Failure) -> Int {
        guard let text = query[name], let value = Int(text), range.contains(value) else {
            throw Failure(
                status: 400,
                message:
                    "\(name) must be an integer in \(range.lowerBound)...\(range.upperBound)"
            )
        }
        return value
    }

    func closeCode(_ query: [String: String], _ name: String) throws(Failure) -> CloseCode {
        let code = CloseCode(UInt16(try number(query, name, in: 1000...4999)))
        guard code.isSendable else {
            throw Failure(status: 400, message: "\(name) is a close code that may not be sent")
        }
        return code
    }

    func flag(_ query: [String: String], _ name: String) throws(Failure) -> Bool {
        switch query[name] {
        case "true", "1": return true
        case "false", "0": return false
        default: throw Failure(status: 400, message: "\(name) must be true or false")
        }
    }

    /// Made while it is written, a piece per connection (chunked): a server with thousands of
    /// connections each holding thousands of topics answers tens of MB, and holds one
    /// connection's part at a time. Connections are those opened when the request came; each
    /// one's topics are read when its piece is made.
    private func subscriptionsJSON(_ target: LiveTestServer) -> HTTPResponse {
        let count = target.connectionCount
        return HTTPResponse(status: 200, contentType: "application/json") { [target] index in
            if index == 0 {
                let log = target.subscriptionLog.map(\.jsonQuoted).joined(separator: ",")
                return Array((#"{"log":["# + log + #"],"connections":{"#).utf8)
            }
            if index <= count {
                let topics = target.topics(of: index).map(\.jsonQuoted).joined(separator: ",")
                return Array(((index > 1 ? "," : "") + "\"\(index)\":[" + topics + "]").utf8)
            }
            return index == count + 1 ? Array("}}\n".utf8) : nil
        }
    }

    private func statisticsJSON(_ target: LiveTestServer) -> String {
        let stats = target.server.statistics
        let fields: [(String, Int)] = [
            ("accepted", stats.accepted), ("turnedAway", stats.turnedAway),
            ("handshakesCompleted", stats.handshakesCompleted),
            ("handshakesRefused", stats.handshakesRefused), ("handshakeTimeouts", stats.handshakeTimeouts),
            ("protocolFailures", stats.protocolFailures), ("resets", stats.resets), ("idleDrops", stats.idleDrops),
            ("open", target.server.openConnections.count), ("lastSequence", Int(target.lastSequence)),
            ("refusedFrames", target.refusedFrames), ("budgetDrops", stats.budgetDrops),
        ]
        return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",")
            + ",\"frozen\":\(target.server.isFrozen),\"admin\":" + adminStatisticsJSON() + "}"
    }

    /// The endpoint's own refusals: requests not addressed to it, without the token, with a
    /// body it would not read, and idle sockets dropped to make room.
    func adminStatisticsJSON() -> String {
        let (forbidden, unauthorized, server) = guardian.state.withLock { ($0.forbidden, $0.unauthorized, $0.server) }
        let admin = server?.statistics
        let adminFields: [(String, Int)] = [
            ("forbidden", forbidden), ("unauthorized", unauthorized), ("badBodies", admin?.badBodies ?? 0),
            ("evictedIdle", admin?.evictedIdle ?? 0), ("turnedAway", admin?.turnedAway ?? 0),
        ]
        return "{" + adminFields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }
}
