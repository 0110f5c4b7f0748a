public import LiveConnection

/// A plain HTTP/1.1 response, for the requests a ``WebSocketServer`` answers without an
/// upgrade: refusals, and a handler's own endpoints (the test server's admin API).
///
/// ```swift
/// HTTPResponse(status: 200, body: #"{"seq":3}"#, contentType: "application/json").bytes
/// ```
///
/// The connection closes after it (`Connection: close`): one request per connection keeps
/// the server's HTTP side to what a control endpoint needs.
public struct HTTPResponse: Hashable, Sendable {
    public var status: Int
    public var body: String
    public var contentType: String
    public var headers: [Endpoint.Header]

    public init(
        status: Int, body: String, contentType: String = "text/plain; charset=utf-8", headers: [Endpoint.Header] = []
    ) {
        precondition((100...599).contains(status) && status != 101, "\(status) is not a plain HTTP status")
        self.status = status
        self.body = body
        self.contentType = contentType
        self.headers = headers
    }

    public var bytes: [UInt8] {
        let payload = Array(body.utf8)
        var lines = [
            "HTTP/1.1 \(status) \(Self.phrase(status))",
            "Content-Type: \(contentType)",
            "Content-Length: \(payload.count)",
            "Connection: close",
        ]
        for header in headers { lines.append("\(header.name): \(header.value)") }
        return Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8) + payload
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
