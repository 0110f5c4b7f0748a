/// A named property the simulator checks after every step of every run.
///
/// ```swift
/// for invariant in Invariant.all { print(invariant.name, "—", invariant.summary) }
/// result.violations.first?.invariant == .staleInputsChangeNothing
/// ```
///
/// Each is documented in `docs/invariants.md` with what it proves and what it does not;
/// each has a deliberately broken ``LogicVariant`` that a test shows it catching.
public struct Invariant: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// A stable, kebab-case name (used on the command line and in traces).
    public let name: String
    /// One line: what must hold.
    public let summary: String

    public var description: String { name }

    public static func < (lhs: Invariant, rhs: Invariant) -> Bool {
        all.firstIndex(of: lhs)! < all.firstIndex(of: rhs)!
    }

    public static let singleLiveTransport = Invariant(
        name: "single-live-transport",
        summary: "at most one transport connection is held open, and a closed generation's socket is released")
    public static let staleInputsChangeNothing = Invariant(
        name: "stale-inputs-change-nothing",
        summary: "a callback of a generation that is not live produces no effect (a late open is only closed)")
    public static let deadPeerDetected = Invariant(
        name: "dead-peer-detected",
        summary: "an open connection that can no longer hear the server is torn down within P + T")
    public static let resubscribeBeforeOpen = Invariant(
        name: "resubscribe-before-open",
        summary: "every connection sends a subscribe for every wanted topic before it reports open")
    public static let backoffWithinPolicy = Invariant(
        name: "backoff-within-policy",
        summary: "every retry delay lies within the policy's bounds for the failures since the last open")
    public static let quietAfterStop = Invariant(
        name: "quiet-after-stop",
        summary: "after disconnect() or a terminal close, nothing is opened, sent, pinged or retried until connect")
    public static let commandsAtMostOnce = Invariant(
        name: "commands-at-most-once",
        summary: "the server receives each outgoing command at most once")
    public static let exactlyOnceInOrder = Invariant(
        name: "exactly-once-in-order",
        summary: "with resume, broadcasts reach the app once each, in order; gaps only for messages the server lost")
    public static let reportedStateIsTrue = Invariant(
        name: "reported-state-is-true",
        summary: "open is never reported before the handshake, with no connection, or on a socket dead for over P + T")
    public static let eventuallyOpen = Invariant(
        name: "eventually-open",
        summary: "healthy network, wanted, foreground: open within the connect timeout + P + T + the backoff cap + round trips")
    public static let noHotLoop = Invariant(
        name: "no-hot-loop",
        summary: "connection attempts per minute stay within what the backoff policy and the faults explain")

    /// Every invariant, in the order reports list them.
    public static let all: [Invariant] = [
        .singleLiveTransport, .staleInputsChangeNothing, .deadPeerDetected, .resubscribeBeforeOpen,
        .backoffWithinPolicy, .quietAfterStop, .commandsAtMostOnce, .exactlyOnceInOrder,
        .reportedStateIsTrue, .eventuallyOpen, .noHotLoop,
    ]

    /// The invariant with this name.
    public static func named(_ name: String) -> Invariant? { all.first { $0.name == name } }
}

/// One broken invariant: which, when (virtual time) and what was seen.
///
/// ```swift
/// if let violation = result.violations.first {
///     print("\(violation.at) \(violation.invariant): \(violation.detail)")
/// }
/// ```
public struct Violation: Hashable, Sendable, CustomStringConvertible {
    public var invariant: Invariant
    public var at: VirtualClock.Instant
    public var detail: String

    public init(invariant: Invariant, at: VirtualClock.Instant, detail: String) {
        self.invariant = invariant
        self.at = at
        self.detail = detail
    }

    public var description: String { "\(at) \(invariant.name): \(detail)" }
}
