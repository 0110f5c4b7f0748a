/// What a manager tells the app, through ``ConnectionManager/events()``.
///
/// ```swift
/// for await event in await manager.events() {
///     switch event {
///     case .phase(let phase): status = phase
///     case .message(let message, _): handle(message)
///     case .gap(let expected, let received): reload(from: expected, to: received)
///     }
/// }
/// ```
///
/// A new subscriber first receives the current phase (phases are state); messages are
/// never replayed to it (frames are not state).
public enum ConnectionEvent: Hashable, Sendable, CustomStringConvertible {
    /// The phase changed (or, first of all, the phase now).
    case phase(Phase)
    /// A new message, in order; `sequence` is its resume sequence number, if it has one.
    case message(Message, sequence: UInt64?)
    /// Resume could not fill a hole: messages `expected..<received` were never delivered.
    case gap(expected: UInt64, received: UInt64)

    public var description: String {
        switch self {
        case .phase(let phase): "phase \(phase)"
        case .message(let message, let sequence): "message" + (sequence.map { " seq=\($0)" } ?? "") + " \(message)"
        case .gap(let expected, let received): "gap expected=\(expected) received=\(received)"
        }
    }
}

/// Why ``ConnectionManager/disconnect(code:reason:)`` refused a close code or reason.
public enum CloseRequestError: Error, Hashable, Sendable, CustomStringConvertible {
    /// RFC 6455 §7.4 does not let an endpoint send this code.
    case codeNotSendable(CloseCode)
    /// The reason is longer than a close frame holds (125 bytes, 2 of them the code).
    case reasonTooLong(bytes: Int)

    /// The most UTF-8 bytes a close reason may have.
    public static let maximumReasonLength = 123

    public var description: String {
        switch self {
        case .codeNotSendable(let code):
            "close code \(code) may not be sent (use 1000–1003, 1007–1014 or 3000–4999)"
        case .reasonTooLong(let bytes):
            "close reason of \(bytes) bytes is longer than the \(Self.maximumReasonLength) a close frame holds"
        }
    }
}

/// Why a command was not sent, or may not have been.
public enum CommandError: Error, Hashable, Sendable, CustomStringConvertible {
    /// There was no open connection; nothing was sent.
    case notConnected
    /// The connection ended while the command was in flight: it may or may not have
    /// arrived, and it will not be resent. Reconcile with the server if it matters.
    case outcomeUnknown
    /// The value could not be encoded.
    case encodingFailed(String)

    public var description: String {
        switch self {
        case .notConnected: "not connected"
        case .outcomeUnknown: "outcome unknown"
        case .encodingFailed(let detail): "encoding failed: \(detail)"
        }
    }
}
