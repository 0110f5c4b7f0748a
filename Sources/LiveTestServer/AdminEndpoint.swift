import Foundation
import LiveConnection
public import WebSocketTransport

/// The test server's controls over plain HTTP, so a test in any language can drive it.
///
/// ```
/// curl -X POST 'http://127.0.0.1:9100/close?code=4001&reason=token%20expired'
/// curl -X POST  http://127.0.0.1:9100/freeze
/// curl          http://127.0.0.1:9100/subscriptions
/// ```
///
/// Actions are POSTs with query parameters and answer `ok` (or a JSON body); state is read
/// with GET. A bad parameter is a 400 naming it, an unknown path a 404 listing the paths.
/// It is a second ``WebSocketServer`` (same sockets, same limits) that answers only plain
/// HTTP, bound to loopback unless told otherwise: anyone who can reach it can reset every
/// connection. docs/serve.md lists every route.
public struct AdminEndpoint: WebSocketServerHandler {
    let target: LiveTestServer

    public init(controlling target: LiveTestServer) { self.target = target }

    public func handshake(_ request: UpgradeRequest) async -> HandshakeDecision {
        .refuse(UpgradeRefusal(status: 404, reason: "the admin endpoint speaks plain HTTP only"))
    }

    public func plainRequest(_ head: HTTPHead, body: [UInt8]) async -> HTTPResponse? {
        let parts = head.startLine.split(separator: " ")
        guard parts.count == 3, let components = URLComponents(string: String(parts[1])) else {
            return HTTPResponse(status: 400, body: "bad request line\n")
        }
        var query: [String: String] = [:]
        for item in components.queryItems ?? [] { query[item.name] = item.value ?? "" }
        do {
            return try route(method: String(parts[0]), path: components.path, query: query)
        } catch {
            return HTTPResponse(status: error.status, body: error.message + "\n")
        }
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

    private func route(method: String, path: String, query: [String: String]) throws(Failure) -> HTTPResponse {
        let server = target.server
        guard Self.routes.contains(where: { $0.split(separator: " ")[1].split(separator: "?")[0] == path }) else {
            throw Failure(status: 404, message: "no route \(path); routes: \(Self.routes.joined(separator: ", "))")
        }
        let isRead = path == "/subscriptions" || path == "/stats"
        guard method == (isRead ? "GET" : "POST") else {
            throw Failure(status: 405, message: "\(path) takes \(isRead ? "GET" : "POST"), not \(method)")
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
            return HTTPResponse(status: 200, body: subscriptionsJSON() + "\n", contentType: "application/json")
        case "/stats":
            return HTTPResponse(status: 200, body: statisticsJSON() + "\n", contentType: "application/json")
        default: preconditionFailure("route \(path) is listed but not handled")
        }
        return HTTPResponse(status: 200, body: "ok\n")
    }

    private func number(_ query: [String: String], _ name: String, in range: ClosedRange<Int>) throws(Failure) -> Int {
        guard let text = query[name], let value = Int(text), range.contains(value) else {
            throw Failure(
                status: 400,
                message:
                    "\(name) must be an integer in \(range.lowerBound)...\(range.upperBound), got '\(query[name] ?? "")'"
            )
        }
        return value
    }

    private func closeCode(_ query: [String: String], _ name: String) throws(Failure) -> CloseCode {
        let code = CloseCode(UInt16(try number(query, name, in: 1000...4999)))
        guard code.isSendable else { throw Failure(status: 400, message: "close code \(code) may not be sent") }
        return code
    }

    private func flag(_ query: [String: String], _ name: String) throws(Failure) -> Bool {
        switch query[name] {
        case "true", "1": return true
        case "false", "0": return false
        default: throw Failure(status: 400, message: "\(name) must be true or false, got '\(query[name] ?? "")'")
        }
    }

    private func subscriptionsJSON() -> String {
        let log = target.subscriptionLog.map(\.jsonQuoted).joined(separator: ",")
        let count = target.connectionCount
        let connections = (0..<count).map { index in
            let topics = target.topics(of: index + 1).map(\.jsonQuoted).joined(separator: ",")
            return "\"\(index + 1)\":[\(topics)]"
        }
        return #"{"log":[\#(log)],"connections":{\#(connections.joined(separator: ","))}}"#
    }

    private func statisticsJSON() -> String {
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
            + ",\"frozen\":\(target.server.isFrozen)}"
    }
}
