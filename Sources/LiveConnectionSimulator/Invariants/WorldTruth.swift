public import LiveConnection
import SimulationKernel

/// What the invariant monitor knows of the world outside the manager: the sockets, what the
/// server received, and whether the world lets a wanted connection open.
///
/// ```swift
/// let monitor = InvariantMonitor(configuration: configuration, world: network, now: { clock.now })
/// ```
///
/// Two worlds tell it: the ``SimulatedNetwork`` knows everything (the server's log, when a
/// socket died, whether the network is healthy), and an ``ObservedTransport`` knows what a
/// client sees from its own end of a real wire (what it sent, what it heard and when). An
/// answer a world cannot know is `nil`, and the rule that needs it is then not judged
/// (docs/invariants.md lists which).
public protocol WorldTruth: Sendable {
    /// The connections the client holds open, in order of opening.
    func heldLinks() -> [LinkTruth]
    /// The latest connection opened for generation `g`, if any.
    func link(for generation: Generation) -> LinkTruth?
    /// The connections from the `start`-th on (0-based), in order of attempts.
    func links(from start: Int) -> [LinkTruth]
    /// How many command frames (frames that are not subscription controls) went to the server.
    var commandCount: Int { get }
    /// The command frames from position `start` on, with their connection.
    func commands(from start: Int) -> [(connection: Int, text: String)]
    /// The oldest sequence number the server can still replay; nil if the judge cannot know.
    var replayableFrom: UInt64? { get }
    /// Whether a connection attempt would succeed now and then stay up for longer than a
    /// heartbeat interval `p` (no idle timeout at or below it); nil if the judge cannot know.
    func welcomesConnections(heartbeatInterval p: Duration) -> Bool?
    /// When a send was last held back on purpose (its writer stalls), if ever.
    var lastSendDelayedAt: VirtualClock.Instant? { get }
    /// The answers to one step's `questions`, all at the same instant, written over `snapshot`
    /// (whose storage is reused): what the invariant monitor reads at every step, in one go.
    /// The default asks the questions above one at a time (``answeredOneAtATime(_:)``); a world
    /// that locks per question answers under one lock.
    func answer(_ questions: WorldQuestions, into snapshot: inout WorldSnapshot)
}

extension SimulatedNetwork: WorldTruth {
    public var replayableFrom: UInt64? { oldestRetainedSequence }

    public func welcomesConnections(heartbeatInterval p: Duration) -> Bool? {
        state.withLock { $0.welcomesConnections(heartbeatInterval: p) }
    }
}
