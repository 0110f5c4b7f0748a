/// What the connection is doing, as reported to the app.
///
/// ```swift
/// for await event in await manager.events() {
///     if case .phase(.waiting(let reason, let delay, _)) = event { print("retry in \(delay): \(reason)") }
/// }
/// ```
public enum Phase: Hashable, Sendable, CustomStringConvertible {
    /// Never asked to connect.
    case idle
    /// A connection attempt is in flight (`attempt` counts from 1 since a connection last proved itself by answering a heartbeat).
    case connecting(attempt: Int)
    /// The handshake completed and every topic was resubscribed; `attempt` is the attempt
    /// that succeeded (1: the first try; 4: three failed before it), counted like
    /// ``connecting(attempt:)``.
    case open(attempt: Int)
    /// Waiting `delay` before the next attempt, because of `reason`
    /// ("closed 4001", "heartbeat missed", "error ECONNRESET", "handshake 503", …); `close` is
    /// the server's close frame when the server ended the last connection with one.
    case waiting(reason: String, delay: Duration, close: CloseFrame? = nil)
    /// Wanted, but the app is in the background: no socket until it comes back.
    case backgrounded
    /// Wanted, but the app reported the network path unviable: no attempt (and no failure
    /// counted) until it reports the path viable again, which reconnects at once.
    case offline
    /// Not retrying, because of `reason` ("closed 4003", "disconnected"); `close` is the
    /// server's close frame when a close ended it (a terminal code, or the last failure before
    /// giving up). Only `connect(to:)` leaves it.
    case stopped(reason: String, close: CloseFrame? = nil)

    /// Whether this is the open phase, whatever attempt opened it.
    public var isOpen: Bool {
        if case .open = self { true } else { false }
    }

    public var description: String {
        switch self {
        case .idle: "idle"
        case .connecting(let attempt): "connecting attempt=\(attempt)"
        case .open(let attempt): "open attempt=\(attempt)"
        case .waiting(let reason, let delay, let close):
            "waiting \(delay.traceFormatted) reason=\"\(reason)\"" + (close.map { " close=\($0)" } ?? "")
        case .backgrounded: "backgrounded"
        case .offline: "offline"
        case .stopped(let reason, let close): "stopped reason=\"\(reason)\"" + (close.map { " close=\($0)" } ?? "")
        }
    }
}

extension Duration {
    /// Milliseconds with up to six decimals ("1500ms", "0.25ms"): exact, short, diffable.
    package var traceFormatted: String {
        let nanos = nanoseconds
        let whole = nanos / 1_000_000
        var fraction = abs(nanos % 1_000_000)
        if fraction == 0 { return "\(whole)ms" }
        var digits = 6
        while fraction % 10 == 0 { fraction /= 10; digits -= 1 }
        let padded = String(repeating: "0", count: digits - String(fraction).count) + String(fraction)
        return "\(nanos < 0 && whole == 0 ? "-" : "")\(whole).\(padded)ms"
    }
}
