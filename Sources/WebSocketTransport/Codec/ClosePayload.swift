package import LiveConnection

/// The body of a close frame: an optional status code and a UTF-8 reason (RFC 6455 §5.5.1).
///
/// ```swift
/// let payload = try ClosePayload(parsing: [0x0F, 0xA1] + Array("expired".utf8))
/// payload.code    // 4001
/// payload.reason  // "expired"
/// ```
package struct ClosePayload: Hashable, Sendable {
    /// Nil when the frame had no body; reported to the user as 1005 (no status received).
    package var code: CloseCode?
    package var reason: String

    package init(code: CloseCode?, reason: String = "") {
        self.code = code
        self.reason = reason
    }

    /// Parses and validates a received close body.
    ///
    /// A 1-byte body, a code that may not be sent (0–999, 1004–1006, 1015, 1016–2999,
    /// 5000+) fail with 1002; a reason that is not UTF-8 fails with 1007.
    package init(parsing body: some Collection<UInt8>) throws(ProtocolFailure) {
        let bytes = Array(body)
        if bytes.isEmpty {
            self.init(code: nil)
            return
        }
        guard bytes.count >= 2 else { throw .protocolError("close frame with a 1-byte body") }
        let code = CloseCode(UInt16(bytes[0]) << 8 | UInt16(bytes[1]))
        guard code.isSendable else { throw .protocolError("close code \(code) may not be sent") }
        var validator = UTF8Validator()
        let reasonBytes = bytes[2...]
        guard validator.consume(reasonBytes), validator.isAtBoundary else {
            throw .invalidPayload("close reason is not UTF-8")
        }
        self.init(code: code, reason: String(decoding: reasonBytes, as: UTF8.self))
    }

    /// The body to send: empty without a code, else the code and the reason truncated
    /// at a character boundary so the frame stays within 125 bytes.
    package var bytes: [UInt8] {
        guard let code else { return [] }
        var body: [UInt8] = [UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)]
        var reasonBytes: [UInt8] = []
        for character in reason {
            let utf8 = Array(String(character).utf8)
            if reasonBytes.count + utf8.count > 123 { break }
            reasonBytes += utf8
        }
        body += reasonBytes
        return body
    }
}
