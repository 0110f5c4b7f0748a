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
    /// Arm the connection the client holds now (for ``StaleCallback/open``: its newest
    /// handshake) to deliver this callback late: when the client closes it, its closing
    /// handshake lingers `after`, and the callback arrives at the end, on that connection's
    /// own stream, after the manager moved on (see `SimulatedNetwork.armLateCallback(_:after:)`).
    case deliverStale(StaleCallback, after: Duration = .zero)
    /// Deliver the next transport callback twice.
    case duplicateNextCallback
    /// Complete the next send only after the receive that follows it.
    case delaySendCompletion

    // MARK: The app (spelled as `ConnectionManager`'s methods and the machine's `Input`)
    /// `setForeground(_:)`: the app comes to the foreground (`true`) or goes to the
    /// background (`false`). Traces spell it `foreground` and `background`.
    case setForeground(Bool)
    /// `connect(to:)` the simulated endpoint with this index.
    case connect(endpoint: Int)
    case disconnect
    /// `disconnect(code:reason:)`: the app stops wanting the connection and closes it with its
    /// own close code and reason (the manager refuses a code an endpoint may not send, and the
    /// run records the refusal).
    case disconnectWith(code: CloseCode, reason: String)
    /// Send a command (its outcome is recorded).
    case send(text: String)
    /// Ping the server through `manager.ping(timeout:)` (its outcome is recorded).
    case ping(timeout: Duration)
    case subscribe(String)
    case unsubscribe(String)
    /// The device's network path goes away (`false`) or comes back (`true`): the network
    /// carries nothing (new connections fail with ENETUNREACH, held sockets fall silent, their
    /// frames held until it returns), and the app's path monitor tells the manager
    /// (`setPathViable`) in the same instant.
    case path(viable: Bool)
}

extension SimulationAction {
    /// Whether the action changes the world a client lives in (liveness restarts its
    /// clock; the hot-loop allowance grows). Stale callbacks, duplicates, broadcasts,
    /// commands, app pings and subscriptions must not cost the connection, so they do not count.
    /// Arming a delayed send does not either; the monitor counts the stall itself when a
    /// send is actually held back.
    public var disruptsTheWorld: Bool {
        switch self {
        case .broadcast, .deliverStale, .duplicateNextCallback, .delaySendCompletion, .send, .ping, .subscribe,
            .unsubscribe:
            false
        default: true
        }
    }
}

/// The kinds of late callbacks an old connection can deliver.
public enum StaleCallback: String, Hashable, Sendable, CaseIterable {
    /// A frame that was already in the socket's buffer: the last one the server logged.
    case message
    /// The socket fails (ECONNRESET) during the closing handshake.
    case error
    /// The server's own close frame (1011 "late close") crosses the client's.
    case close
    /// The pong of a ping in flight.
    case pong
    /// A handshake that completes although the manager gave the attempt up (written by the
    /// model checker's counterexamples; swarm scenarios keep to the four above, so seeds
    /// made before it existed still make the same schedules).
    case open

    /// The kinds swarm scenarios draw from.
    package static let swarm: [StaleCallback] = [.message, .error, .close, .pong]
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
