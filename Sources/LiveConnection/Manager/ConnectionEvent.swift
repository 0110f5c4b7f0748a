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
