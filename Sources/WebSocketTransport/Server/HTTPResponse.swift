public import LiveConnection

/// A plain HTTP/1.1 response, for the requests a ``WebSocketServer`` answers without an
/// upgrade: refusals, and a handler's own endpoints (the test server's admin API).
///
/// ```swift
/// HTTPResponse(status: 200, body: #"{"seq":3}"#, contentType: "application/json").bytes
/// HTTPResponse(status: 200, contentType: "application/json") { index in
///     index < 3 ? Array("[\(index)]".utf8) : nil    // made as it is written: chunked
/// }
/// ```
///
/// The connection closes after it (`Connection: close`): one request per connection keeps
/// the server's HTTP side to what a control endpoint needs.
public struct HTTPResponse: Sendable {
    public var status: Int
    /// The whole body, sent with its `Content-Length`; empty when ``pieces`` makes it.
    public var body: String
    public var contentType: String
    public var headers: [Endpoint.Header]
    /// A body made while it is written, for an answer too large to hold at once: the server
    /// asks for piece 0, 1, … until nil and sends each as one chunk (`Transfer-Encoding:
    /// chunked`), so memory holds one piece and a client can tell a whole answer (it ends
    /// with the last chunk) from a cut one. Called on the connection's task, between writes.
    public var pieces: (@Sendable (Int) -> [UInt8]?)?

    public init(
        status: Int, body: String, contentType: String = "text/plain; charset=utf-8", headers: [Endpoint.Header] = []
    ) {
        precondition((100...599).contains(status) && status != 101, "\(status) is not a plain HTTP status")
        self.status = status
        self.body = body
        self.contentType = contentType
        self.headers = headers
    }

    /// A response whose body is made piece by piece as it is written (see ``pieces``).
    public init(
        status: Int, contentType: String, headers: [Endpoint.Header] = [],
        pieces: @escaping @Sendable (Int) -> [UInt8]?
    ) {
        self.init(status: status, body: "", contentType: contentType, headers: headers)
        self.pieces = pieces
    }

    /// The status line and headers, through the blank line.
    var head: [UInt8] {
        var lines = [
            "HTTP/1.1 \(status) \(Self.phrase(status))",
            "Content-Type: \(contentType)",
            pieces == nil ? "Content-Length: \(body.utf8.count)" : "Transfer-Encoding: chunked",
            "Connection: close",
        ]
        for header in headers { lines.append("\(header.name): \(header.value)") }
        return Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
    }

    /// The whole response as it goes on the wire (every piece made now, for a made body).
    public var bytes: [UInt8] {
        guard let pieces else { return head + Array(body.utf8) }
        var bytes = head
        var index = 0
        while let piece = pieces(index) {
            bytes += Self.chunk(piece)
            index += 1
        }
        return bytes + Self.chunk([])
    }

    /// One chunk of a chunked body: its size in hex, the bytes. Empty: the last chunk, which
    /// ends the body (so an empty piece is not sent as one).
    static func chunk(_ piece: [UInt8]) -> [UInt8] {
        piece.isEmpty
            ? Array("0\r\n\r\n".utf8) : Array((String(piece.count, radix: 16) + "\r\n").utf8) + piece + [13, 10]
    }

    static func phrase(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 411: "Length Required"
        case 413: "Content Too Large"
        case 426: "Upgrade Required"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        default: "Status \(status)"
        }
    }
}
