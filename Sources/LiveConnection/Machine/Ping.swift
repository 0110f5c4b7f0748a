/// Identifies one ping the app asked for, so its outcome is reported exactly once.
///
/// ```swift
/// machine.handle(.ping(PingID(1), timeout: .seconds(2)), using: &random)
/// // open:      [.sendPing(g, p1), .startTimer(.pingDeadline(p1), 2 s)]
/// // otherwise: [.completePing(p1, .failed(.notConnected))]
/// ```
public struct PingID: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible,
    ExpressibleByIntegerLiteral
{
    public var rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue }
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }
    public init(integerLiteral value: UInt64) { rawValue = value }
    public var description: String { "p\(rawValue)" }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// How an app ping (``ConnectionManager/ping(timeout:)``) ended: exactly one of these, once.
///
/// ```swift
/// switch await manager.ping(timeout: .seconds(2)) {
/// case .alive: showConnected()
/// case .noAnswer: showStalled()              // the heartbeat decides whether to reconnect
/// case .failed(let failure): showOffline(failure)
/// }
/// ```
public enum PingOutcome: Hashable, Sendable, CustomStringConvertible {
    /// The server answered within the timeout.
    case alive
    /// The connection stayed, but no answer came within the timeout. The ping proves
    /// nothing more: the heartbeat decides whether the peer is dead.
    case noAnswer
    /// No answer will come: there was no open connection, or it ended while waiting.
    case failed(PingFailure)

    public var description: String {
        switch self {
        case .alive: "alive"
        case .noAnswer: "no answer"
        case .failed(let failure): failure.description
        }
    }
}

/// Why a ping could not be answered.
public enum PingFailure: Error, Hashable, Sendable, CustomStringConvertible {
    /// There was no open connection; nothing was sent.
    case notConnected
    /// The connection ended before the answer came (the ping itself changed nothing).
    case connectionEnded
    /// The timeout was not a positive duration of at most an hour; nothing was sent.
    case invalidTimeout(Duration)

    public var description: String {
        switch self {
        case .notConnected: "not connected"
        case .connectionEnded: "connection ended"
        case .invalidTimeout(let timeout): "invalid timeout \(timeout) (must be above 0 and at most 1 hour)"
        }
    }
}
