public import LiveConnectionRules

extension Rule.Judge {
    /// The simulator's invariant monitor, after every step of every run (``Rule/invariants``).
    public static let simulator = Rule.Judge(rawValue: "simulator")
    /// The simulator's exploration, once over all its runs: statistical rules that no single
    /// run can break (`Rule.backoffDistribution`, judged by ``BackoffDelayPool``).
    public static let pool = Rule.Judge(rawValue: "pool")
}

extension Rule {
    /// The rules of the catalogue that the simulator checks after every step of every run —
    /// its invariants — in the order reports list them.
    ///
    /// ```swift
    /// for invariant in Rule.invariants { print(invariant.name, "—", invariant.summary) }
    /// result.violations.first?.rule == .staleInputsChangeNothing
    /// ```
    ///
    /// Each is documented in `docs/invariants.md` with what it proves and what it does not;
    /// each has a deliberately broken ``LogicVariant`` that a test shows it catching.
    public static let invariants: [Rule] = [
        .singleLiveTransport, .staleInputsChangeNothing, .deadPeerDetected, .resubscribeBeforeOpen,
        .backoffWithinPolicy, .quietAfterStop, .commandsAtMostOnce, .exactlyOnceInOrder,
        .reportedStateIsTrue, .eventuallyOpen, .noHotLoop, .endpointOfLastConnect, .quietInBackground,
        .timersArmedAsConfigured, .expiredCredentialsRefreshed, .eventsFollowTheMachine, .pingsAnsweredOnce,
        .quietWithoutPath, .reconnectsWhenPathReturns, .givesUpAtTheLimit, .freshCredentialsPerHandshake,
        .disconnectClosesAsAsked, .closeReachesTheApp, .streamsEndStopped,
    ]

    /// The invariant with this name.
    public static func invariant(named name: String) -> Rule? { named(name, in: invariants) }
}
