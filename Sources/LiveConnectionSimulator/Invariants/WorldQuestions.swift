public import LiveConnection

/// What the invariant monitor asks the world at one step: which new connections and
/// commands it has not read yet, whose connection it watches for death, and whether the
/// step runs the time checks.
///
/// ```swift
/// let questions = WorldQuestions(
///     linksFrom: 3, commandsFrom: 10, watching: Generation(4), timeChecks: true, heartbeatInterval: .seconds(25))
/// let snapshot = network.snapshot(questions)
/// ```
public struct WorldQuestions: Hashable, Sendable {
    /// The connections from this one on (0-based, in order of attempts) are new to the monitor.
    public var linksFrom: Int
    /// The command frames from this position on are new to the monitor.
    public var commandsFrom: Int
    /// The generation whose latest connection the dead-peer rule watches this step (the open
    /// one), if any: only its ``WorldSnapshot/Watched/deadSince`` is read, so no full
    /// ``LinkTruth`` is built for it.
    public var watching: Generation?
    /// The step runs the time checks: the held connections, the liveness facts and the
    /// commands are read, and idle timeouts are settled up to now first (as ``WorldTruth/heldLinks()`` does).
    public var timeChecks: Bool
    /// The heartbeat interval P, for ``WorldTruth/welcomesConnections(heartbeatInterval:)``.
    public var heartbeatInterval: Duration

    /// The questions of one step (the monitor asks them from its own counters).
    public init(
        linksFrom: Int, commandsFrom: Int, watching: Generation?, timeChecks: Bool, heartbeatInterval: Duration
    ) {
        self.linksFrom = linksFrom
        self.commandsFrom = commandsFrom
        self.watching = watching
        self.timeChecks = timeChecks
        self.heartbeatInterval = heartbeatInterval
    }
}
