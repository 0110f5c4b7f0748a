/// A close frame: the status code and the reason text the peer sent with it.
///
/// ```swift
/// for await event in await manager.events() {
///     if case .phase(.waiting(_, let delay, let close?)) = event {
///         print("server closed \(close.code) \"\(close.reason)\"; retrying in \(delay)")
///     }
/// }
/// ```
///
/// The waiting and stopped phases carry the server's, typed, so an app can tell 4001 from
/// 4003 and show the server's own words without parsing the phase's reason string.
public struct CloseFrame: Hashable, Sendable, CustomStringConvertible {
    /// The status code (RFC 6455 §7.4).
    public var code: CloseCode
    /// The reason text (UTF-8, at most 123 bytes; often empty).
    public var reason: String

    public init(code: CloseCode, reason: String) {
        self.code = code
        self.reason = reason
    }

    /// `4001 "token expired"`.
    public var description: String { "\(code) \"\(reason)\"" }
}
