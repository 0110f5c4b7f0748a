/// Identifies one transport connection of a manager; every transport callback carries it.
///
/// ```swift
/// machine.handle(.opened(Generation(3)), using: &random) // ignored unless 3 is the live one
/// ```
///
/// A new generation is minted for every connection attempt. Inputs tagged with any
/// other generation are stale and change nothing: this is what stops an old socket's
/// late `onclose` from tearing down the new one (socket.io-client PR 533).
public struct Generation: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible,
    ExpressibleByIntegerLiteral
{
    public var rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue }
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }
    public init(integerLiteral value: UInt64) { rawValue = value }
    public var next: Generation { Generation(rawValue + 1) }
    public var description: String { "g\(rawValue)" }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Identifies one outgoing command, so its outcome can be reported exactly once.
public struct CommandID: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible,
    ExpressibleByIntegerLiteral
{
    public var rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue }
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }
    public init(integerLiteral value: UInt64) { rawValue = value }
    public var description: String { "c\(rawValue)" }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// The timers the machine arms. Connection-scoped timers carry their generation, so a
/// timer of an old connection can never fire into a new one (phoenix 3083: a stale
/// heartbeat reference surviving a reconnect).
public enum TimerID: Hashable, Sendable, CustomStringConvertible {
    /// The wait between attempts.
    case retry
    /// A handshake that never completes.
    case connectTimeout(Generation)
    /// Time to send the next ping.
    case heartbeat(Generation)
    /// No pong (or other frame) since the oldest unanswered ping: the peer is dead.
    case pongDeadline(Generation)
    /// An app ping's timeout: no answer by then is "no answer".
    case pingDeadline(PingID)

    public var description: String {
        switch self {
        case .retry: "retry"
        case .connectTimeout(let g): "connect-timeout(\(g))"
        case .heartbeat(let g): "heartbeat(\(g))"
        case .pongDeadline(let g): "pong-deadline(\(g))"
        case .pingDeadline(let id): "ping-deadline(\(id))"
        }
    }
}

/// What the manager sends on a connection: its own control frames, and the user's commands.
public enum Outbound: Hashable, Sendable, CustomStringConvertible {
    /// A frame the manager sends on its own; ``SubscriptionProtocol`` spells it for a server.
    case control(Control)
    /// A user command, sent at most once: the app's own bytes.
    case command(CommandID)

    /// The frames the manager sends on its own, in the abstract.
    public enum Control: Hashable, Sendable, CustomStringConvertible {
        case subscribe(String)
        case unsubscribe(String)
        /// Ask the server to replay everything after this sequence number.
        case resume(after: UInt64)

        public var description: String {
            switch self {
            case .subscribe(let topic): "subscribe \(topic)"
            case .unsubscribe(let topic): "unsubscribe \(topic)"
            case .resume(let sequence): "resume after \(sequence)"
            }
        }
    }

    public var description: String {
        switch self {
        case .control(let control): control.description
        case .command(let id): "command \(id)"
        }
    }
}

/// How a user command ended: sent, or the ``CommandError`` that the manager's `send` throws.
///
/// ```swift
/// machine.handle(.send(id), using: &random)   // → [.completeCommand(id, .notConnected)] when not open
/// CommandOutcome.notConnected == .failed(.notConnected)
/// ```
///
/// One spelling of the failures: the machine's verdict and the app's error are the same values.
public enum CommandOutcome: Hashable, Sendable, CustomStringConvertible {
    /// The transport took the frame. Whether the server acted on it is the application's to confirm.
    case sent
    /// Not sent (``CommandError/notConnected``), or maybe sent (``CommandError/outcomeUnknown``):
    /// never resent on its own ("retry the connection, never the command").
    case failed(CommandError)

    /// There was no open connection: nothing was sent.
    public static let notConnected = CommandOutcome.failed(.notConnected)
    /// The connection ended while the frame was in flight: it may or may not have arrived.
    public static let outcomeUnknown = CommandOutcome.failed(.outcomeUnknown)

    public var description: String {
        switch self {
        case .sent: "sent"
        case .failed(let error): error.description
        }
    }
}
