package import LiveConnection

/// A peer broke RFC 6455; ``code`` is the close code we answer with (§7.4.1).
///
/// ```swift
/// do { _ = try decoder.nextEvent() }
/// catch { print(error.code) }   // 1002, 1007 or 1009
/// ```
///
/// Every failure the decoder can detect maps to exactly one of three codes, so the
/// connection can "fail the WebSocket connection" (§7.1.7) without a second decision.
package struct ProtocolFailure: Error, Hashable, Sendable, CustomStringConvertible {
    /// The close code to send: 1002 protocol error, 1007 invalid payload, 1009 too big.
    package var code: CloseCode
    /// What was wrong, for logs and test messages.
    package var detail: String

    package init(_ code: CloseCode, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    static func protocolError(_ detail: String) -> ProtocolFailure { .init(.protocolError, detail) }
    static func invalidPayload(_ detail: String) -> ProtocolFailure { .init(.invalidPayload, detail) }
    static func tooBig(_ detail: String) -> ProtocolFailure { .init(.messageTooBig, detail) }

    package var description: String { "\(code) \(detail)" }
}
