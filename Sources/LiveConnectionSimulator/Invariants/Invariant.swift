/// A rule of the ``Rule`` catalogue that the simulator checks after every step of every run.
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

    /// The simulator's judgement of a catalogue rule: same name, same summary.
    init(_ rule: Rule) {
        precondition(rule.judges.contains(.simulator), "\(rule) is not the simulator's to judge")
        self.name = rule.name
        self.summary = rule.summary
    }

    public static let singleLiveTransport = Invariant(.singleLiveTransport)
    public static let staleInputsChangeNothing = Invariant(.staleInputsChangeNothing)
    public static let deadPeerDetected = Invariant(.deadPeerDetected)
    public static let resubscribeBeforeOpen = Invariant(.resubscribeBeforeOpen)
    public static let backoffWithinPolicy = Invariant(.backoffWithinPolicy)
    public static let quietAfterStop = Invariant(.quietAfterStop)
    public static let commandsAtMostOnce = Invariant(.commandsAtMostOnce)
    public static let exactlyOnceInOrder = Invariant(.exactlyOnceInOrder)
    public static let reportedStateIsTrue = Invariant(.reportedStateIsTrue)
    public static let eventuallyOpen = Invariant(.eventuallyOpen)
    public static let noHotLoop = Invariant(.noHotLoop)
    public static let endpointOfLastConnect = Invariant(.endpointOfLastConnect)
    public static let quietInBackground = Invariant(.quietInBackground)
    public static let timersArmedAsConfigured = Invariant(.timersArmedAsConfigured)
    public static let expiredCredentialsRefreshed = Invariant(.expiredCredentialsRefreshed)
    public static let eventsFollowTheMachine = Invariant(.eventsFollowTheMachine)
    public static let pingsAnsweredOnce = Invariant(.pingsAnsweredOnce)
    public static let quietWithoutPath = Invariant(.quietWithoutPath)
    public static let reconnectsWhenPathReturns = Invariant(.reconnectsWhenPathReturns)
    public static let givesUpAtTheLimit = Invariant(.givesUpAtTheLimit)
    public static let freshCredentialsPerHandshake = Invariant(.freshCredentialsPerHandshake)
    public static let disconnectClosesAsAsked = Invariant(.disconnectClosesAsAsked)
    public static let closeReachesTheApp = Invariant(.closeReachesTheApp)
    public static let streamsEndStopped = Invariant(.streamsEndStopped)

    /// Every invariant, in the order reports list them.
    public static let all: [Invariant] = [
        .singleLiveTransport, .staleInputsChangeNothing, .deadPeerDetected, .resubscribeBeforeOpen,
        .backoffWithinPolicy, .quietAfterStop, .commandsAtMostOnce, .exactlyOnceInOrder,
        .reportedStateIsTrue, .eventuallyOpen, .noHotLoop, .endpointOfLastConnect, .quietInBackground,
        .timersArmedAsConfigured, .expiredCredentialsRefreshed, .eventsFollowTheMachine, .pingsAnsweredOnce,
        .quietWithoutPath, .reconnectsWhenPathReturns, .givesUpAtTheLimit, .freshCredentialsPerHandshake,
        .disconnectClosesAsAsked, .closeReachesTheApp, .streamsEndStopped,
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
