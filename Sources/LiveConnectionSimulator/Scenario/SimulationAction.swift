public import LiveConnection

/// One external input of a simulation: what the server, the network or the app does.
///
/// ```swift
/// let schedule: [ScheduledAction] = [
///     ScheduledAction(at: .zero, .subscribe("loans")),
///     ScheduledAction(at: .zero, .connect(endpoint: 0)),
///     ScheduledAction(at: .seconds(3), .resetConnection),
///     ScheduledAction(at: .seconds(9), .freeze),
/// ]
/// ```
///
/// A trace records these (not the manager's reactions), so a trace stays replayable
/// after the manager's code changes; the reactions are re-derived and can be diffed.
public enum SimulationAction: Hashable, Sendable {
    // MARK: The server
    /// Refuse (true) or accept (false) new TCP connections.
    case refuseConnections(Bool)
    /// Fail every later handshake with this HTTP status (nil: succeed again).
    case failHandshakes(status: Int?)
    /// Leave later handshakes hanging (true) or complete them (false).
    case hangHandshakes(Bool)
    /// Send a sequence-numbered message on `topic` to every connection subscribed to it.
    case broadcast(topic: String, text: String)
    /// Close the live connection with a close frame.
    case closeConnection(code: CloseCode, reason: String)
    /// Reset the live connection: no close frame (the client sees ECONNRESET).
    case resetConnection
    /// Socket open, no data, no pongs.
    case freeze
    case thaw
    /// One-way latency of every later message, in both directions.
    case setLatency(Duration)
    /// Restart: every connection dropped, subscriptions forgotten, the message log kept.
    case restartServer
    /// Drop a connection silently after this long without traffic, as a NAT gateway does (nil: never).
    case setIdleTimeout(Duration?)
    /// Treat every later connection the hostile way (nil: healthy again).
    case hostile(HostileServer?)

    // MARK: Faults only a simulator can give
    /// Deliver an old generation's callback late, after a reconnect.
    case deliverStale(StaleCallback)
    /// Deliver the next transport callback twice.
    case duplicateNextCallback
    /// Complete the next send only after the receive that follows it.
    case delaySendCompletion

    // MARK: The app
    case background
    case foreground
    /// `connect(to:)` the simulated endpoint with this index.
    case connect(endpoint: Int)
    case disconnect
    /// Send a command (its outcome is recorded).
    case send(text: String)
    /// Ping the server through `manager.ping(timeout:)` (its outcome is recorded).
    case ping(timeout: Duration)
    case subscribe(String)
    case unsubscribe(String)
}

extension SimulationAction {
    /// Whether the action changes the world a client lives in (liveness restarts its
    /// clock; the hot-loop allowance grows). Stale callbacks, duplicates, broadcasts,
    /// commands, app pings and subscriptions must not cost the connection, so they do not count.
    /// Arming a delayed send does not either; the monitor counts the stall itself when a
    /// send is actually held back.
    public var disruptsTheWorld: Bool {
        switch self {
        case .broadcast, .deliverStale, .duplicateNextCallback, .delaySendCompletion, .send, .ping, .subscribe, .unsubscribe:
            false
        default: true
        }
    }
}

/// The kinds of late callbacks an old connection can deliver.
public enum StaleCallback: String, Hashable, Sendable, CaseIterable {
    case message
    case error
    case close
    case pong
    /// A handshake that completes after the manager gave the attempt up (written by the
    /// model checker's counterexamples; swarm scenarios keep to the four above, so seeds
    /// made before it existed still make the same schedules).
    case open

    /// The kinds swarm scenarios draw from.
    static let swarm: [StaleCallback] = [.message, .error, .close, .pong]
}

/// An action at a moment of virtual time, measured from the start of the run.
public struct ScheduledAction: Hashable, Sendable {
    public var at: Duration
    public var action: SimulationAction

    public init(at: Duration, _ action: SimulationAction) {
        self.at = at
        self.action = action
    }
}
