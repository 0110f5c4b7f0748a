/// What the machine asks its shell to do. The shell executes these in order and
/// decides nothing itself.
///
/// ```swift
/// for effect in machine.handle(input, using: &random) {
///     switch effect {
///     case .openConnection(let g, let endpoint): startConnecting(g, endpoint)
///     ...
///     }
/// }
/// ```
public enum Effect: Hashable, Sendable, CustomStringConvertible {
    /// Open a transport connection for this generation.
    case openConnection(Generation, Endpoint)
    /// Close this generation's connection (or abandon its attempt) and stop all its work.
    case closeConnection(Generation, code: CloseCode, reason: String)
    /// Send a frame on this generation's connection (frames keep their order).
    case send(Generation, Outbound)
    /// Answer ``Input/flushed(_:)`` once every frame posted before this was taken by the transport.
    case flush(Generation)
    /// Send a ping on this generation's connection.
    case ping(Generation)
    /// Send an app ping on this generation's connection; answer ``Input/pingAnswered(_:_:)`` when its pong arrives.
    case sendPing(Generation, PingID)
    /// Tell the app how its ping ended (exactly once per ping).
    case completePing(PingID, PingOutcome)
    /// Arm a timer (re-arming one that is armed restarts it).
    case startTimer(TimerID, Duration)
    /// Disarm a timer; it must not fire afterwards.
    case cancelTimer(TimerID)
    /// Ask the credentials provider for fresh credentials (at most one refresh at a time).
    case refreshCredentials
    /// Tell the caller of a command how it ended (exactly once per command).
    case completeCommand(CommandID, CommandOutcome)
    /// Hand this message, with its resume sequence number, to the app (it is new and in order).
    case deliverMessage(Message, sequence: UInt64?)
    /// The resume sequence skipped numbers: messages `expected..<received` never arrived.
    case reportGap(expected: UInt64, received: UInt64)
    /// The phase changed.
    case report(Phase)

    public var description: String {
        switch self {
        case .openConnection(let g, let endpoint): "open \(g) \(endpoint)"
        case .closeConnection(let g, let code, let reason): "close \(g) code=\(code) reason=\"\(reason)\""
        case .send(let g, let outbound): "send \(g) \(outbound)"
        case .flush(let g): "flush \(g)"
        case .ping(let g): "ping \(g)"
        case .sendPing(let g, let id): "send-ping \(g) \(id)"
        case .completePing(let id, let outcome): "complete \(id) \(outcome)"
        case .startTimer(let timer, let delay): "start-timer \(timer) \(delay.traceFormatted)"
        case .cancelTimer(let timer): "cancel-timer \(timer)"
        case .refreshCredentials: "refresh-credentials"
        case .completeCommand(let id, let outcome): "complete \(id) \(outcome)"
        case .deliverMessage: "deliver"
        case .reportGap(let expected, let received): "gap expected=\(expected) received=\(received)"
        case .report(let phase): "phase \(phase)"
        }
    }
}
