public import Foundation

/// A call the app makes on the manager's public API, as the app made it.
///
/// ```swift
/// monitor.app(.setForeground(false))
/// await manager.setForeground(false)
/// ```
///
/// The monitor takes what the app wants (a connection, to where, in the foreground, which
/// topics) from these calls, told by whoever makes them, and not from the inputs the shell
/// hands the machine: a shell that forwards `setForeground(true)` for the app's
/// `setForeground(false)` would otherwise corrupt the very facts it is judged by.
public enum AppCall: Hashable, Sendable {
    /// `connect(to:)`.
    case connect(URL)
    /// `disconnect()` or `disconnect(code:reason:)` (accepted).
    case disconnect
    /// `setForeground(_:)`.
    case setForeground(Bool)
    /// `subscribe(_:)`.
    case subscribe(String)
    /// `unsubscribe(_:)`.
    case unsubscribe(String)
}
