/// Everything that can happen to a connection machine: user intents, transport
/// callbacks (each tagged with its ``Generation``), timers and credential refreshes.
///
/// ```swift
/// var machine = ConnectionMachine(configuration: .init())
/// var random = Xoshiro256StarStar(seed: 1)
/// let effects = machine.handle(.connect(endpoint), using: &random)
/// // [.report(.connecting(attempt: 1)), .openConnection(g1, endpoint), .startTimer(.connectTimeout(g1), 10 s)]
/// ```
public enum Input: Hashable, Sendable, CustomStringConvertible {
    // MARK: Intents (from the app)
    /// `connect(to:)`: want a connection to this endpoint (the only way the destination changes).
    case connect(Endpoint)
    /// `disconnect(code:reason:)`: stop wanting a connection; the close frame carries this
    /// code and reason (`disconnect()` sends 1000 "disconnected"). The shell validated them.
    case disconnect(code: CloseCode = .normal, reason: String = Input.disconnectReason)
    /// The app moved to the foreground (`true`) or background (`false`).
    case setForeground(Bool)
    /// The app's path monitor says the network path can (`true`) or cannot (`false`) carry a
    /// connection. No platform framework is read: the app reports what it knows.
    case setPathViable(Bool)
    case subscribe(String)
    case unsubscribe(String)
    /// The app wants to send a command once.
    case send(CommandID)
    /// The app asks whether the server answers a ping within `timeout` (the shell checked it).
    case ping(PingID, timeout: Duration)

    // MARK: Transport callbacks
    /// The handshake of this generation's connection completed.
    case opened(Generation)
    /// This generation's connection attempt failed.
    case connectFailed(Generation, TransportError)
    /// A data message arrived; `sequence` is its resume sequence number, if it has one (the
    /// shell's wire format read it). The machine decides on the sequence alone and hands the
    /// message on in ``Effect/deliverMessage(_:sequence:)``, so the shell delivers what the
    /// effect carries and keeps nothing aside for it.
    case received(Generation, Message, sequence: UInt64?)
    /// The pong to one of this generation's pings arrived.
    case pong(Generation)
    /// The peer sent a close frame.
    case closedByPeer(Generation, code: CloseCode, reason: String)
    /// The connection was reset or failed (no close frame).
    case failed(Generation, TransportError)
    /// The transport took a command's frame.
    case sendCompleted(Generation, CommandID)
    /// Every frame posted to this generation before the last ``Effect/flush(_:)`` was taken.
    case flushed(Generation)
    /// The pong to an app ping arrived.
    case pingAnswered(Generation, PingID)

    // MARK: Timers and credentials
    /// An armed timer fired.
    case timerFired(TimerID)
    /// The credentials provider finished (`false`: it failed).
    case credentialsRefreshed(succeeded: Bool)

    /// The close reason `disconnect()` sends.
    public static let disconnectReason = "disconnected"

    /// The generation a transport callback belongs to (`nil` for other inputs).
    public var generation: Generation? {
        switch self {
        case .opened(let g), .connectFailed(let g, _), .received(let g, _, _), .pong(let g),
            .closedByPeer(let g, _, _), .failed(let g, _), .sendCompleted(let g, _), .flushed(let g),
            .pingAnswered(let g, _):
            g
        default: nil
        }
    }

    public var description: String {
        switch self {
        case .connect(let endpoint): "connect \(endpoint)"
        case .disconnect(.normal, Input.disconnectReason): "disconnect"
        case .disconnect(let code, let reason): "disconnect code=\(code) reason=\"\(reason)\""
        case .setForeground(let foreground): foreground ? "foreground" : "background"
        case .setPathViable(let viable): viable ? "path viable" : "path unviable"
        case .subscribe(let topic): "subscribe \(topic)"
        case .unsubscribe(let topic): "unsubscribe \(topic)"
        case .send(let id): "send \(id)"
        case .ping(let id, let timeout): "ping \(id) timeout=\(timeout.traceFormatted)"
        case .opened(let g): "opened \(g)"
        case .connectFailed(let g, let error): "connect-failed \(g) \"\(error.reason)\""
        case .received(let g, _, let sequence): "received \(g)" + (sequence.map { " seq=\($0)" } ?? "")
        case .pong(let g): "pong \(g)"
        case .closedByPeer(let g, let code, let reason): "closed \(g) code=\(code) reason=\"\(reason)\""
        case .failed(let g, let error): "failed \(g) \"\(error.reason)\""
        case .sendCompleted(let g, let id): "send-completed \(g) \(id)"
        case .flushed(let g): "flushed \(g)"
        case .pingAnswered(let g, let id): "ping-answered \(g) \(id)"
        case .timerFired(let timer): "timer \(timer)"
        case .credentialsRefreshed(let succeeded): "credentials-refreshed \(succeeded ? "ok" : "failed")"
        }
    }
}
