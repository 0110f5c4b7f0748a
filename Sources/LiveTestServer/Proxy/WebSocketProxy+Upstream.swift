import LiveConnection
import WebSocketTransport

/// The proxy's own connection to the user's server, made for each client with the client's request.
extension WebSocketProxy {
    struct UpstreamLink {
        var stream: any ByteStream
        var subprotocol: String?
        /// Bytes the upstream sent after its 101.
        var leftover: [UInt8]
    }

    /// Request headers that belong to one hop and are made afresh for the upstream: the
    /// upgrade's own, the framing of a body, and the extensions (none are negotiated upstream:
    /// the proxy decodes every frame).
    static let hopHeaders: Set<String> = [
        "host", "upgrade", "connection", "sec-websocket-key", "sec-websocket-version", "sec-websocket-extensions",
        "sec-websocket-protocol", "sec-websocket-accept", "content-length", "transfer-encoding", "keep-alive",
        "proxy-connection", "te", "trailer",
    ]

    /// The upstream's request target for a client's: the upstream URL's path, or the client's
    /// when the upstream URL has none; then the upstream URL's query and the client's, joined.
    func upstreamResource(for resource: String) -> String {
        func split(_ text: String) -> (path: String, query: String?) {
            guard let mark = text.firstIndex(of: "?") else { return (text, nil) }
            return (String(text[..<mark]), String(text[text.index(after: mark)...]))
        }
        let own = split(upstream.resource)
        let client = split(resource)
        let path = own.path == "/" ? client.path : own.path
        let query = [own.query, client.query].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: "&")
        return query.isEmpty ? path : "\(path)?\(query)"
    }

    /// Connects to the upstream and passes the client's request on (its target, headers and
    /// subprotocols); the refusal to answer the client when that fails: the upstream's own
    /// status when it refused, 504 when it did not answer in time, 502 otherwise.
    func connectUpstream(for request: UpgradeRequest, client address: String) async throws(UpgradeRefusal)
        -> UpstreamLink
    {
        var target = upstream
        target.resource = upstreamResource(for: request.resource)
        let headers = request.headers.filter { !Self.hopHeaders.contains($0.name) && HandshakeRequest.isToken($0.name) }
        let handshake = HandshakeRequest(
            target: target, key: random.draw { HandshakeRequest.makeKey(using: &$0) }, headers: headers,
            subprotocols: request.subprotocols)
        let outcome: UpstreamOutcome
        do throws(TransportError) {
            outcome = try await upstreamHandshake(handshake, until: .now + configuration.connectTimeout)
        } catch {
            count { $0.upstreamFailures += 1 }
            if error == .reset(errno: "ETIMEDOUT") {
                throw UpgradeRefusal(status: 504, reason: "the upstream did not answer in time")
            }
            throw UpgradeRefusal(status: 502, reason: "the upstream cannot be reached: \(error.reason)")
        }
        switch outcome {
        case .opened(let link): return link
        case .refused(let status) where (300...599).contains(status):
            count { $0.upstreamRefusals += 1 }
            throw UpgradeRefusal(status: status, reason: "refused by the upstream")
        case .refused(let status):
            // A 1xx or 2xx other than 101 is no answer a WebSocket client can use.
            count { $0.upstreamFailures += 1 }
            throw UpgradeRefusal(status: 502, reason: "the upstream answered \(status), not an upgrade")
        }
    }

    private enum UpstreamOutcome {
        case opened(UpstreamLink)
        case refused(status: Int)
    }

    /// TCP, TLS for wss://, the request and the upstream's answer, all before `deadline`.
    private func upstreamHandshake(_ handshake: HandshakeRequest, until deadline: ContinuousClock.Instant)
        async throws(TransportError) -> UpstreamOutcome
    {
        let target = handshake.target
        let socket = try await TCPSocket.connect(host: target.host, port: target.port, until: deadline)
        let stream: any ByteStream
        do throws(TransportError) {
            stream =
                target.isSecure
                ? try await TLSStream.handshake(
                    over: socket, host: target.host, configuration: configuration.upstreamTLS, until: deadline)
                : socket
        } catch {
            socket.shutdown()
            throw error
        }
        do throws(TransportError) {
            try await stream.write(handshake.bytes, until: deadline)
            var received: [UInt8] = []
            while true {
                if let (response, consumed) = try HandshakeResponse.parse(received) {
                    guard response.status == 101 else {
                        stream.shutdown()
                        return .refused(status: response.status)
                    }
                    let subprotocol = try response.validate(for: handshake)
                    return .opened(
                        UpstreamLink(stream: stream, subprotocol: subprotocol, leftover: Array(received[consumed...])))
                }
                let bytes = try await stream.read(maximum: 4096, until: deadline)
                if bytes.isEmpty { throw TransportError.handshakeInvalid("the upstream closed during the handshake") }
                received += bytes
            }
        } catch {
            stream.shutdown()
            throw error
        }
    }
}
