package import Foundation
package import LiveConnection

/// The client's opening handshake (RFC 6455 §4.1): an HTTP/1.1 GET asking to upgrade.
///
/// ```swift
/// var random = SystemRandomSource()
/// let request = try HandshakeRequest(endpoint: endpoint, key: HandshakeRequest.makeKey(using: &random))
/// socket.write(request.bytes)
/// ```
package struct HandshakeRequest: Hashable, Sendable {
    /// The target as parsed from the URL.
    package var target: WebSocketURL
    /// The base64 of 16 random bytes; the server proves it read it through `Sec-WebSocket-Accept`.
    package var key: String
    package var headers: [Endpoint.Header]
    package var subprotocols: [String]
    /// Extensions offered in `Sec-WebSocket-Extensions`, in preference order.
    package var extensions: [WebSocketExtension]

    package init(
        target: WebSocketURL, key: String, headers: [Endpoint.Header] = [], subprotocols: [String] = [],
        extensions: [WebSocketExtension] = []
    ) {
        self.target = target
        self.key = key
        self.headers = headers
        self.subprotocols = subprotocols
        self.extensions = extensions
    }

    /// A request for an endpoint; fails on a URL that is not ws:// or wss:// with a host.
    /// Fails on a URL that is not ws:// or wss:// with a host, and on a header or
    /// subprotocol that would break the request (a line break would let a value smuggle
    /// in headers of its own).
    package init(endpoint: Endpoint, key: String, extensions: [WebSocketExtension] = []) throws(TransportError) {
        for header in endpoint.headers {
            guard Self.isToken(header.name), !header.value.utf8.contains(where: { $0 == 13 || $0 == 10 || $0 == 0 })
            else {
                throw .handshakeInvalid("request header '\(header.name)' is not a valid HTTP header")
            }
        }
        for subprotocol in endpoint.subprotocols where !Self.isToken(subprotocol) {
            throw .handshakeInvalid("subprotocol '\(subprotocol)' is not an HTTP token")
        }
        try self.init(
            target: WebSocketURL(endpoint.url), key: key, headers: endpoint.headers,
            subprotocols: endpoint.subprotocols,
            extensions: extensions)
    }

    /// An HTTP token (RFC 9110 §5.6.2): visible ASCII without separators.
    package static func isToken(_ text: String) -> Bool {
        !text.isEmpty
            && text.utf8.allSatisfy { byte in
                byte > 0x20 && byte < 0x7F && !"\"(),/:;<=>?@[\\]{}".utf8.contains(byte)
            }
    }

    /// A fresh `Sec-WebSocket-Key`: 16 bytes from two random words, base64-encoded.
    package static func makeKey(using random: inout some RandomSource) -> String {
        var bytes: [UInt8] = []
        for _ in 0..<2 {
            let word = random.nextWord()
            for shift in stride(from: 56, through: 0, by: -8) {
                bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift)))
            }
        }
        return Data(bytes).base64EncodedString()
    }

    /// The value the server must answer in `Sec-WebSocket-Accept`.
    package var expectedAccept: String { Self.accept(forKey: key) }

    /// base64(SHA-1(key + the RFC's GUID)).
    package static func accept(forKey key: String) -> String {
        Data(SHA1.hash(Array((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8))).base64EncodedString()
    }

    /// The request bytes, headers in a fixed order so a seeded run writes the same bytes.
    package var bytes: [UInt8] {
        var lines = [
            "GET \(target.resource) HTTP/1.1",
            "Host: \(target.hostHeader)",
            "Upgrade: websocket",
            "Connection: Upgrade",
            "Sec-WebSocket-Key: \(key)",
            "Sec-WebSocket-Version: 13",
        ]
        if !subprotocols.isEmpty { lines.append("Sec-WebSocket-Protocol: \(subprotocols.joined(separator: ", "))") }
        if !extensions.isEmpty {
            lines.append("Sec-WebSocket-Extensions: \(extensions.map(\.headerValue).joined(separator: ", "))")
        }
        for header in headers { lines.append("\(header.name): \(header.value)") }
        return Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
    }
}

/// A ws:// or wss:// URL taken apart for the socket and the request line.
///
/// ```swift
/// let target = try WebSocketURL(URL(string: "wss://example.com/live?v=2")!)
/// target.port      // 443
/// target.resource  // "/live?v=2"
/// ```
package struct WebSocketURL: Hashable, Sendable {
    package var host: String
    package var port: UInt16
    package var isSecure: Bool
    /// Path and query, "/" when the URL has no path.
    package var resource: String

    package init(host: String, port: UInt16, isSecure: Bool, resource: String) {
        self.host = host
        self.port = port
        self.isSecure = isSecure
        self.resource = resource
    }

    package init(_ url: URL) throws(TransportError) {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw .invalidURL(url.absoluteString)
        }
        switch components.scheme?.lowercased() {
        case "ws": isSecure = false
        case "wss": isSecure = true
        default: throw .invalidURL("scheme must be ws or wss: \(url.absoluteString)")
        }
        guard let host = components.host, !host.isEmpty else { throw .invalidURL("no host: \(url.absoluteString)") }
        self.host = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        if let port = components.port {
            guard let valid = UInt16(exactly: port), valid > 0 else { throw .invalidURL("bad port \(port)") }
            self.port = valid
        } else {
            self.port = isSecure ? 443 : 80
        }
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        resource = components.percentEncodedQuery.map { "\(path)?\($0)" } ?? path
    }

    /// The Host header: the port only when it is not the scheme's default; IPv6 in brackets.
    package var hostHeader: String {
        let name = host.contains(":") ? "[\(host)]" : host
        let defaultPort: UInt16 = isSecure ? 443 : 80
        return port == defaultPort ? name : "\(name):\(port)"
    }
}
