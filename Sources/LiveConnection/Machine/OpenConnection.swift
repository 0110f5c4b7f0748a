/// What the machine knows of its open connection, beyond its generation: one value the
/// transitions change a field of, rather than five positions rebuilt at every step.
public struct OpenConnection: Hashable, Sendable {
    /// The attempt that opened it (1 when the first try succeeded), reported in the open
    /// phase for as long as the connection lasts.
    public var attempt: Int
    /// A ping is unanswered: its pong deadline is armed.
    public var awaitingPong: Bool
    /// Commands handed to the connection whose send has not completed, answered when it
    /// is torn down (never resent).
    public var commandsInFlight: [CommandID]
    /// The app's pings sent on it and not yet answered, each answered exactly once (answer,
    /// deadline or teardown).
    public var pingsInFlight: [PingID]

    public init(
        attempt: Int, awaitingPong: Bool = false, commandsInFlight: [CommandID] = [], pingsInFlight: [PingID] = []
    ) {
        self.attempt = attempt
        self.awaitingPong = awaitingPong
        self.commandsInFlight = commandsInFlight
        self.pingsInFlight = pingsInFlight
    }
}
