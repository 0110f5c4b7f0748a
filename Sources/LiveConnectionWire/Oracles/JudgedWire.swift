public import LiveConnectionTraces
public import SimulationKernel

/// What a ``WireJudge`` reads of a world: the wire events as they happen, and the few truths
/// about the server and its sockets that no single event carries.
///
/// ```swift
/// let judge = WireJudge(claims: claims, clients: nil, topics: [], wire: recorded, clock: clock)
/// ```
///
/// The simulated network provides it (it knows everything), and so does a wire history
/// recorded from a real server (``RecordedWire``), which derives each truth from the faults
/// the server recorded applying: one judge, the same rules, both worlds.
public protocol JudgedWire: Sendable {
    /// The events from position `start` on.
    func wireEvents(from start: Int) -> [WireEvent]
    /// The client (0, 1, …) that made attempt `attempt` to `url`.
    func client(ofAttempt attempt: Int, url: String) -> Int
    /// The socket's writer: held back by a stalled send, and when a stall last ended.
    func writer(of socket: Int) -> (stalled: Bool, lastStallEndedAt: VirtualClock.Instant?)
    /// The sockets a client still holds (open, not closed by it) that nothing can reach the
    /// client on any more, since when: the server ended them, an idle timeout dropped them,
    /// a freeze is on.
    func silentSockets() -> [(socket: Int, deadSince: VirtualClock.Instant)]
    /// Whether a new connection would be accepted and complete its handshake now.
    var acceptsConnections: Bool { get }
    /// The idle timeout in force (nil: none).
    var idleTimeout: Duration? { get }
}
