import LiveConnection
import WebSocketTransport

/// The admin routes of `livesim proxy`: `livesim serve`'s fault vocabulary, each fault aimed at
/// every connection or, with `client=ID`, at one client's (docs/proxy.md).
extension AdminEndpoint {
    static let proxyRoutes = [
        "POST /close?code=N&reason=R[&client=ID]", "POST /reset[?client=ID]", "POST /freeze[?client=ID]",
        "POST /thaw[?client=ID]", "POST /refuse?on=true|false", "POST /handshake-status?status=N|none[&client=ID]",
        "POST /hang?on=true|false[&client=ID]", "POST /latency?ms=N|none[&client=ID]",
        "POST /accept-then-close?code=N|none&reason=R[&client=ID]", "POST /slice?bytes=N|none&ms=M[&client=ID]",
        "GET /connections", "GET /stats",
    ]

    func proxyRoute(_ proxy: WebSocketProxy, method: String, path: String, query: [String: String])
        throws(Failure) -> HTTPResponse
    {
        // Exact paths only, as for the live server's routes.
        guard
            Self.proxyRoutes.contains(where: {
                $0.split(separator: " ")[1].split(whereSeparator: { $0 == "?" || $0 == "[" })[0] == path
            })
        else {
            throw Failure(status: 404, message: "no such route; routes: \(Self.proxyRoutes.joined(separator: ", "))")
        }
        let isRead = path == "/connections" || path == "/stats"
        guard method == (isRead ? "GET" : "POST") else {
            throw Failure(status: 405, message: "\(path) takes \(isRead ? "GET" : "POST")")
        }
        switch path {
        case "/close":
            proxy.close(try target(query), code: try closeCode(query, "code"), reason: query["reason"] ?? "")
        case "/reset": proxy.reset(try target(query))
        case "/freeze": proxy.freeze(try setting(query, proxy))
        case "/thaw": proxy.thaw(try target(query))
        case "/refuse":
            guard query["client"] == nil else {
                throw Failure(
                    status: 400,
                    message:
                        "refuse cannot aim at one client: its identity arrives after its TCP connection is accepted;"
                        + " use handshake-status or reset")
            }
            let refuse = try flag(query, "on")
            do throws(TransportError) { try proxy.refuseConnections(refuse) } catch {
                throw Failure(status: 500, message: "cannot bind the port again: \(error)")
            }
        case "/handshake-status":
            let target = try setting(query, proxy)
            if query["status"] == "none" {
                proxy.failHandshakes(target, status: nil)
            } else {
                let status = try number(query, "status", in: 200...599)
                guard status != 101 else { throw Failure(status: 400, message: "status 101 is not a refusal") }
                proxy.failHandshakes(target, status: status)
            }
        case "/hang": proxy.hangHandshakes(try setting(query, proxy), try flag(query, "on"))
        case "/latency":
            let target = try setting(query, proxy)
            proxy.setLatency(
                target, query["ms"] == "none" ? nil : .milliseconds(try number(query, "ms", in: 0...600_000)))
        case "/accept-then-close":
            proxy.acceptThenClose(
                try setting(query, proxy), code: query["code"] == "none" ? nil : try closeCode(query, "code"),
                reason: query["reason"] ?? "")
        case "/slice":
            let target = try setting(query, proxy)
            if query["bytes"] == "none" {
                proxy.setSlicing(target, nil)
            } else {
                let bytes = try number(query, "bytes", in: 1...65_536)
                let pause = try number(query, "ms", in: 0...10_000)
                proxy.setSlicing(target, Slicing(bytes: bytes, pause: .milliseconds(pause)))
            }
        case "/connections":
            let rows = proxy.openConnections.map { #"{"id":\#($0.id),"client":\#($0.client.jsonQuoted)}"# }
            return HTTPResponse(
                status: 200, body: #"{"connections":["# + rows.joined(separator: ",") + "]}\n",
                contentType: "application/json")
        case "/stats":
            return HTTPResponse(status: 200, body: proxyStatisticsJSON(proxy) + "\n", contentType: "application/json")
        default: preconditionFailure("route \(path) is listed but not handled")
        }
        return HTTPResponse(status: 200, body: "ok\n")
    }

    /// `client=ID` aims at one client; without it, at every connection.
    private func target(_ query: [String: String]) throws(Failure) -> FaultTarget {
        guard let client = query["client"] else { return .all }
        guard ClientIdentity.isUsable(client) else {
            throw Failure(
                status: 400,
                message: "client must be 1 to \(ClientIdentity.maximumLength) printable ASCII characters, no spaces")
        }
        return .client(client)
    }

    /// A target for a standing setting: as ``target(_:)``, within the proxy's limit of clients.
    private func setting(_ query: [String: String], _ proxy: WebSocketProxy) throws(Failure) -> FaultTarget {
        let target = try target(query)
        guard proxy.canTarget(target) else {
            throw Failure(
                status: 400,
                message: "\(WebSocketProxy.maximumTargetedClients) clients have faults of their own already")
        }
        return target
    }

    private func proxyStatisticsJSON(_ proxy: WebSocketProxy) -> String {
        let stats = proxy.statistics
        let fields: [(String, Int)] = [
            ("accepted", stats.accepted), ("turnedAway", stats.turnedAway),
            ("handshakesCompleted", stats.handshakesCompleted), ("handshakesRefused", stats.handshakesRefused),
            ("handshakeTimeouts", stats.handshakeTimeouts), ("upstreamFailures", stats.upstreamFailures),
            ("upstreamRefusals", stats.upstreamRefusals), ("protocolFailures", stats.protocolFailures),
            ("resets", stats.resets), ("budgetDrops", stats.budgetDrops), ("stalledWrites", stats.stalledWrites),
            ("discardedAfterClose", stats.discardedAfterClose), ("open", stats.open),
            ("bufferedBytes", proxy.bufferedBytes),
        ]
        return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",")
            + ",\"frozen\":\(proxy.isFrozen),\"admin\":" + adminStatisticsJSON() + "}"
    }
}
