/// What a ``SimulatedNetwork`` did during a run.
///
/// ```swift
/// let statistics = network.statistics
/// print(statistics.connectionsOpened, statistics.broadcasts)
/// ```
public struct NetworkStatistics: Hashable, Sendable {
    public var connectAttempts = 0
    public var refused = 0
    public var handshakesRejected = 0
    public var connectionsOpened = 0
    /// Connections the server closed or reset.
    public var connectionsEnded = 0
    public var restarts = 0
    public var idleDrops = 0
    public var broadcasts = 0
    public var framesDelivered = 0
    public var framesDuplicated = 0
    public var sendsDelayed = 0
    public var pongs = 0
    /// Callbacks a closed connection delivered late, and handshakes completed after they
    /// were given up (see ``SimulatedNetwork/armLateCallback(_:after:)``).
    public var lateCallbacks = 0

    public init() {}
}
