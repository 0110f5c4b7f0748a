import Foundation
package import LiveConnection

/// The server's answer to the opening handshake, parsed from the bytes before the first frame.
///
/// ```swift
/// if let (response, consumed) = try HandshakeResponse.parse(received) {
///     let subprotocol = try response.validate(for: request)   // throws on anything but a valid 101
///     decoder.append(received[consumed...])                   // frames may follow at once
/// }
/// ```
package struct HandshakeResponse: Hashable, Sendable {
    package var status: Int
    /// Header names lower-cased, in the order received.
    package var headers: [Endpoint.Header]

    /// A response head larger than this is refused instead of buffered without end.
    package static let maximumHeadLength = 16 * 1024

    package init(status: Int, headers: [Endpoint.Header]) {
        self.status = status
        self.headers = headers
    }

    /// The values of a header (case-insensitive name).
    package func values(of name: String) -> [String] {
        let lowered = name.lowercased()
        return headers.filter { $0.name == lowered }.map(\.value)
    }

    /// Parses a response head; nil until the blank line has arrived.
    /// Returns the response and how many bytes it used (what follows is frame data).
    package static func parse(_ bytes: some Collection<UInt8>) throws(TransportError) -> (HandshakeResponse, Int)? {
        let parsed: (HTTPHead, Int)?
        do throws(HTTPHead.Failure) {
            parsed = try HTTPHead.parse(bytes, limit: maximumHeadLength)
        } catch {
            switch error {
            case .tooLong(let limit): throw .handshakeInvalid("response head longer than \(limit) bytes")
            case .badHeaderLine(let line): throw .handshakeInvalid("bad header line '\(line)'")
            case .bareLineFeed: throw .handshakeInvalid("a response line ends in LF without CR")
            case .controlCharacter(let place): throw .handshakeInvalid("a control character in \(place)")
            }
        }
        guard let (head, consumed) = parsed else { return nil }
        let parts = head.startLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]), (100...599).contains(status)
        else {
            throw .handshakeInvalid("bad status line '\(head.startLine)'")
        }
        return (HandshakeResponse(status: status, headers: head.headers), consumed)
    }

    /// Checks the upgrade (RFC 6455 §4.1, client steps 1–6); returns the negotiated subprotocol.
    ///
    /// A status other than 101 is `handshakeRejected(status:)` so the
    /// manager can tell 401 from 503; anything else wrong is `handshakeInvalid`.
    package func validate(for request: HandshakeRequest) throws(TransportError) -> String? {
        guard status == 101 else { throw .handshakeRejected(status: status) }
        guard values(of: "upgrade").contains(where: { $0.lowercased() == "websocket" }) else {
            throw .handshakeInvalid("missing Upgrade: websocket")
        }
        guard HTTPHead(startLine: "", headers: headers).tokens(of: "connection").contains("upgrade") else {
            throw .handshakeInvalid("missing Connection: Upgrade")
        }
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
