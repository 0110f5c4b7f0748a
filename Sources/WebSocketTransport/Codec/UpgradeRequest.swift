import Foundation
public import LiveConnection

/// A client's opening handshake as a server reads it (RFC 6455 §4.2.1), and the server's answers.
///
/// ```swift
/// switch try UpgradeRequest.parse(received) {
/// case nil: break                                              // the head has not all arrived
/// case let (request, consumed)?:
///     socket.write(request.acceptance(subprotocol: nil))      // 101 Switching Protocols
///     decoder.append(received[consumed...])                   // frames may follow at once
/// }
/// ```
///
/// A request the server must refuse throws an ``UpgradeRefusal`` carrying the HTTP status
/// to answer with (400, 405, 426 or 431) and a one-line reason; ``UpgradeRefusal/response``
/// is the whole answer.
public struct UpgradeRequest: Hashable, Sendable {
    /// The request target: path and query, as sent (`/live?v=2`).
    public var resource: String
    /// Header names lower-cased, in the order received.
    public var headers: [Endpoint.Header]
    /// `Sec-WebSocket-Key`, already checked to be the base64 of 16 bytes.
    public var key: String
    /// The subprotocols offered, in the client's order of preference.
    public var subprotocols: [String]

    /// A request head larger than this is refused (431) instead of buffered without end.
    public static let maximumHeadLength = 16 * 1024

    /// Parses and validates a request head; nil until the blank line has arrived.
    public static func parse(_ bytes: some Collection<UInt8>) throws(UpgradeRefusal) -> (UpgradeRequest, Int)? {
        guard let (head, consumed) = try head(of: bytes) else { return nil }
        return (try UpgradeRequest(head), consumed)
    }

    /// The request head alone, not yet judged as an upgrade (a server may answer plain HTTP too).
    static func head(of bytes: some Collection<UInt8>) throws(UpgradeRefusal) -> (HTTPHead, Int)? {
        do throws(HTTPHead.Failure) {
            return try HTTPHead.parse(bytes, limit: maximumHeadLength)
        } catch {
            switch error {
            case .tooLong(let limit):
                throw UpgradeRefusal(status: 431, reason: "request head longer than \(limit) bytes")
            // The refusal names the fault, never the client's bytes: an answer must not carry
            // back a `<script>` or a CRLF it was given (the admin endpoint answers through here too).
            case .badHeaderLine: throw UpgradeRefusal(status: 400, reason: "a header line without a colon")
            case .bareLineFeed: throw UpgradeRefusal(status: 400, reason: "a line ends in LF without CR")
            case .controlCharacter(let place):
                throw UpgradeRefusal(status: 400, reason: "a control character in \(place)")
            }
        }
    }

    /// Checks the request line and the upgrade headers, in the RFC's order.
    init(_ head: HTTPHead) throws(UpgradeRefusal) {
        let parts = head.startLine.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[2] == "HTTP/1.1" else {
            throw UpgradeRefusal(status: 400, reason: "bad request line")
        }
        guard parts[0] == "GET" else {
            throw UpgradeRefusal(status: 405, reason: "the method is not GET", headers: [.init("Allow", "GET")])
        }
        guard parts[1].hasPrefix("/") else { throw UpgradeRefusal(status: 400, reason: "target is not a path") }
        guard head.values(of: "host").count == 1 else {
            throw UpgradeRefusal(status: 400, reason: "exactly one Host header is required")
        }
        guard head.tokens(of: "upgrade").contains("websocket") else {
            throw UpgradeRefusal(status: 400, reason: "missing Upgrade: websocket")
        }
        guard head.tokens(of: "connection").contains("upgrade") else {
            throw UpgradeRefusal(status: 400, reason: "missing Connection: Upgrade")
        }
        guard head.values(of: "sec-websocket-version") == ["13"] else {
            // §4.4: tell the client which version we speak.
            throw UpgradeRefusal(
                status: 426, reason: "Sec-WebSocket-Version must be 13", headers: [.init("Sec-WebSocket-Version", "13")]
            )
        }
        let keys = head.values(of: "sec-websocket-key")
        guard keys.count == 1, let decoded = Data(base64Encoded: keys[0]), decoded.count == 16 else {
            throw UpgradeRefusal(status: 400, reason: "Sec-WebSocket-Key must be the base64 of 16 bytes")
        }
        resource = String(parts[1])
        headers = head.headers
        key = keys[0]
        // Subprotocol names are case-sensitive tokens: split, never lower-cased.
        subprotocols = head.values(of: "sec-websocket-protocol").flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// The values of a header (case-insensitive name).
    public func values(of name: String) -> [String] {
        HTTPHead(startLine: "", headers: headers).values(of: name)
    }

    /// The 101 response; `subprotocol` must be one the client offered (or nil), and
    /// `extensions` the server's answer to the offered ones (`PerMessageDeflate.answer(to:)`).
    package func acceptance(subprotocol: String? = nil, extensions: [WebSocketExtension] = []) -> [UInt8] {
        precondition(subprotocol.map(subprotocols.contains) ?? true, "subprotocol \(subprotocol ?? "") was not offered")
        var lines = [
            "HTTP/1.1 101 Switching Protocols",
            "Upgrade: websocket",
            "Connection: Upgrade",
            "Sec-WebSocket-Accept: \(HandshakeRequest.accept(forKey: key))",
        ]
        if let subprotocol { lines.append("Sec-WebSocket-Protocol: \(subprotocol)") }
        if !extensions.isEmpty {
            lines.append("Sec-WebSocket-Extensions: \(extensions.map(\.headerValue).joined(separator: ", "))")
        }
        return Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
    }
}

/// A handshake the server refuses, with the HTTP status it answers.
///
/// ```swift
/// UpgradeRefusal(status: 503, reason: "too many connections").response
/// // "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 21\r\n…\r\n\r\ntoo many connections\n"
/// ```
public struct UpgradeRefusal: Error, Hashable, Sendable, CustomStringConvertible {
    public var status: Int
    public var reason: String
    /// Extra response headers (`Sec-WebSocket-Version: 13` with a 426).
    public var headers: [Endpoint.Header]

    public init(status: Int, reason: String, headers: [Endpoint.Header] = []) {
        precondition((100...599).contains(status) && status != 101, "\(status) is not an HTTP refusal status")
        self.status = status
        self.reason = reason
        self.headers = headers
    }

    public var description: String { "\(status) \(reason)" }

    /// The whole response: status line, headers, and the reason as a plain-text body.
    public var response: [UInt8] {
        HTTPResponse(status: status, body: reason + "\n", headers: headers).bytes
    }
}
