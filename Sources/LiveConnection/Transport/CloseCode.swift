/// A WebSocket close status code (RFC 6455 §7.4), with the classes the manager cares about.
///
/// ```swift
/// let code = CloseCode(4001)
/// code == .tokenExpired  // true
/// code.isSendable        // true: 4000–4999 are the application's
/// ```
public struct CloseCode: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible,
    ExpressibleByIntegerLiteral
{
    public var rawValue: UInt16

    public init(rawValue: UInt16) { self.rawValue = rawValue }
    public init(_ rawValue: UInt16) { self.rawValue = rawValue }
    public init(integerLiteral value: UInt16) { rawValue = value }

    /// 1000: the purpose of the connection is fulfilled.
    public static let normal: CloseCode = 1000
    /// 1001: the endpoint is going away (server restart, app backgrounded).
    public static let goingAway: CloseCode = 1001
    /// 1002: protocol error.
    public static let protocolError: CloseCode = 1002
    /// 1003: a data type the endpoint cannot accept.
    public static let unsupportedData: CloseCode = 1003
    /// 1006: never sent; reported locally when a connection dropped without a close frame.
    public static let abnormal: CloseCode = 1006
    /// 1007: a message's data was inconsistent with its type (e.g. invalid UTF-8).
    public static let invalidPayload: CloseCode = 1007
    /// 1008: policy violation. Terminal by default: retrying would be refused again.
    public static let policyViolation: CloseCode = 1008
    /// 1009: a message too big to process.
    public static let messageTooBig: CloseCode = 1009
    /// 1011: the server hit an unexpected condition.
    public static let internalError: CloseCode = 1011
    /// 4001 (application): the token expired; refresh credentials, then reconnect.
    public static let tokenExpired: CloseCode = 4001
    /// 4003 (application): forbidden. Terminal by default.
    public static let forbidden: CloseCode = 4003

    /// Whether an endpoint may put this code in a close frame (RFC 6455 §7.4.1–2).
    ///
    /// 1004–1006 and 1015 are reserved for local reporting; 1016–2999 are unassigned;
    /// 0–999 are unused. A close frame carrying any of these is a protocol error (1002).
    public var isSendable: Bool {
        switch rawValue {
        case 1000...1003, 1007...1014: true
        case 3000...4999: true
        default: false
        }
    }

    public var description: String { String(rawValue) }

    public static func < (lhs: CloseCode, rhs: CloseCode) -> Bool { lhs.rawValue < rhs.rawValue }
}
