import Foundation
public import LiveConnection

/// The server's answer to the opening handshake, parsed from the bytes before the first frame.
///
/// ```swift
/// if let (response, consumed) = try HandshakeResponse.parse(received) {
///     let subprotocol = try response.validate(for: request)   // throws on anything but a valid 101
///     decoder.append(received[consumed...])                   // frames may follow at once
/// }
/// ```
public struct HandshakeResponse: Hashable, Sendable {
    public var status: Int
    /// Header names lower-cased, in the order received.
    public var headers: [Endpoint.Header]

    /// A response head larger than this is refused instead of buffered without end.
    public static let maximumHeadLength = 16 * 1024

    public init(status: Int, headers: [Endpoint.Header]) {
        self.status = status
        self.headers = headers
    }

    /// The values of a header (case-insensitive name).
    public func values(of name: String) -> [String] {
        let lowered = name.lowercased()
        return headers.filter { $0.name == lowered }.map(\.value)
    }

    /// Parses a response head; nil until the blank line has arrived.
    /// Returns the response and how many bytes it used (what follows is frame data).
    public static func parse(_ bytes: some Collection<UInt8>) throws(TransportError) -> (HandshakeResponse, Int)? {
        let array = Array(bytes)
        guard let end = headEnd(in: array) else {
            if array.count > maximumHeadLength {
                throw .handshakeInvalid("response head longer than \(maximumHeadLength) bytes")
            }
            return nil
        }
        let text = String(decoding: array[..<end], as: UTF8.self)
        var lines = text.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst()
        let parts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]), (100...599).contains(status)
        else {
            throw .handshakeInvalid("bad status line '\(statusLine)'")
        }
        var headers: [Endpoint.Header] = []
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { throw .handshakeInvalid("bad header line '\(line)'") }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers.append(Endpoint.Header(name, value))
        }
        return (HandshakeResponse(status: status, headers: headers), end + 4)
    }

    private static func headEnd(in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }

    /// Checks the upgrade (RFC 6455 §4.1, client steps 1–6); returns the negotiated subprotocol.
    ///
    /// A status other than 101 is ``TransportError/handshakeRejected(status:)`` so the
    /// manager can tell 401 from 503; anything else wrong is `handshakeInvalid`.
    public func validate(for request: HandshakeRequest) throws(TransportError) -> String? {
        guard status == 101 else { throw .handshakeRejected(status: status) }
        guard values(of: "upgrade").contains(where: { $0.lowercased() == "websocket" }) else {
            throw .handshakeInvalid("missing Upgrade: websocket")
        }
        let connectionTokens = values(of: "connection").flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard connectionTokens.contains("upgrade") else { throw .handshakeInvalid("missing Connection: Upgrade") }
        guard values(of: "sec-websocket-accept") == [request.expectedAccept] else {
            throw .handshakeInvalid("Sec-WebSocket-Accept does not match the key")
        }
        // An offered extension's answer is judged by the extension (`PerMessageDeflate.agreement`).
        if request.extensions.isEmpty && !values(of: "sec-websocket-extensions").isEmpty {
            throw .handshakeInvalid("the server chose an extension that was not offered")
        }
        let chosen = values(of: "sec-websocket-protocol")
        guard let subprotocol = chosen.first else { return nil }
        guard chosen.count == 1, request.subprotocols.contains(subprotocol) else {
            throw .handshakeInvalid(
                "the server chose subprotocol '\(chosen.joined(separator: ","))', which was not offered")
        }
        return subprotocol
    }
}
