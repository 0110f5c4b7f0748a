import Foundation
public import LiveConnection

/// The head of an HTTP/1.1 message: the start line and the header fields, up to the blank line.
///
/// ```swift
/// if let (head, consumed) = try HTTPHead.parse(received, limit: 16 * 1024) {
///     head.startLine          // "HTTP/1.1 101 Switching Protocols" or "GET /live HTTP/1.1"
///     head.values(of: "Upgrade")
/// }
/// ```
///
/// Both ends of the opening handshake read one: the client the server's response, the
/// server the client's request. One parser, so both read header lines the same way.
public struct HTTPHead: Hashable, Sendable {
    public var startLine: String
    /// Header names lower-cased, in the order received.
    public var headers: [Endpoint.Header]

    /// Why a head could not be parsed.
    public enum Failure: Error, Hashable, Sendable {
        /// No blank line within the limit.
        case tooLong(limit: Int)
        /// A header line without a colon.
        case badHeaderLine(String)
        /// A line ended by LF alone: HTTP/1.1 lines end in CRLF, and a parser that waited
        /// for one would leave such a request hanging until its timeout.
        case bareLineFeed
        /// A control character (NUL, a bare CR, DEL, …; tab is allowed) in the start line or a
        /// header (RFC 9110 §5.5): a smuggled NUL must not reach the application. `place` is
        /// "the start line" or "the NAME header" (the name only when it is clean itself).
        case controlCharacter(place: String)
    }

    /// The values of a header (case-insensitive name).
    public func values(of name: String) -> [String] {
        let lowered = name.lowercased()
        return headers.filter { $0.name == lowered }.map(\.value)
    }

    /// The comma-separated tokens of a header, trimmed and lower-cased (`Connection: keep-alive, Upgrade`).
    public func tokens(of name: String) -> [String] {
        values(of: name).flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
    }

    /// Parses a head; nil until the blank line has arrived. Returns the head and how many
    /// bytes it used (what follows belongs to the next layer: frames, or a body).
    public static func parse(_ bytes: some Collection<UInt8>, limit: Int) throws(Failure) -> (HTTPHead, Int)? {
        let array = Array(bytes)
        let end = headEnd(in: array)
        // Judged as soon as it arrives, so a bare LF is answered before the head is complete.
        for index in 0..<min(end ?? array.count, array.count) where array[index] == 10 {
            guard index > 0, array[index - 1] == 13 else { throw .bareLineFeed }
        }
        guard let end else {
            if array.count > limit { throw .tooLong(limit: limit) }
            return nil
        }
        guard end <= limit else { throw .tooLong(limit: limit) }
        let text = String(decoding: array[..<end], as: UTF8.self)
        var lines = text.components(separatedBy: "\r\n")
        let startLine = lines.removeFirst()
        if startLine.unicodeScalars.contains(where: isControl) { throw .controlCharacter(place: "the start line") }
        var headers: [Endpoint.Header] = []
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { throw .badHeaderLine(line) }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            guard !line.unicodeScalars.contains(where: isControl) else {
                // The name is shown only when it is clean itself: an error never echoes a control character.
                throw .controlCharacter(
                    place: name.unicodeScalars.contains(where: isControl) ? "a header's name" : "the \(name) header")
            }
            headers.append(Endpoint.Header(name, value))
        }
        return (HTTPHead(startLine: startLine, headers: headers), end + 4)
    }

    /// C0 controls but tab, and DEL: never valid in a field (RFC 9110 §5.5).
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        (scalar.value < 0x20 && scalar != "\t") || scalar.value == 0x7F
    }

    private static func headEnd(in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }
}
