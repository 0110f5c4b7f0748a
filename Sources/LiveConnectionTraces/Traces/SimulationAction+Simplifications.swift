import LiveConnection

extension SimulationAction {
    /// Simpler versions of this action, simplest first, for the shrinker to try.
    ///
    /// ```swift
    /// SimulationAction.closeConnection(code: 4001, reason: "token expired").simplifications
    /// // [close code=4001 reason=""]
    /// SimulationAction.setLatency(.milliseconds(740)).simplifications
    /// // [latency 0ms, latency 370ms]
    /// ```
    ///
    /// Only arguments whose value rarely matters to a failure are simplified: texts and
    /// reasons get shorter, latencies, timeouts and a late callback's linger get smaller. Topics, close codes, HTTP
    /// statuses and endpoints are kept, because they select behaviour (a topic must match a
    /// subscription, a close code decides between retry and stop), and changing them would
    /// trade the failure for a different one more often than it would simplify it.
    public var simplifications: [SimulationAction] {
        switch self {
        case .broadcast(let topic, let text):
            text.count > 1 ? [.broadcast(topic: topic, text: "m")] : []
        case .closeConnection(let code, let reason):
            reason.isEmpty ? [] : [.closeConnection(code: code, reason: "")]
        case .disconnectWith(let code, let reason):
            reason.isEmpty ? [] : [.disconnectWith(code: code, reason: "")]
        case .send(let text):
            text.count > 1 ? [.send(text: "c")] : []
        case .setLatency(let latency):
            Self.smaller(latency, floor: .zero).map { .setLatency($0) }
        case .setIdleTimeout(let timeout?):
            Self.smaller(timeout, floor: .milliseconds(1)).map { .setIdleTimeout($0) }
        case .deliverStale(let callback, let linger):
            Self.smaller(linger, floor: .zero).map { .deliverStale(callback, after: $0) }
        default:
            []
        }
    }

    /// The floor, then half (rounded down to a millisecond), when smaller than `value`.
    private static func smaller(_ value: Duration, floor: Duration) -> [Duration] {
        let half = value.nanoseconds / 2
        let rounded = Duration.nanoseconds(half - half % 1_000_000)
        var result: [Duration] = []
        for candidate in [floor, rounded] where candidate >= floor && candidate < value && !result.contains(candidate) {
            result.append(candidate)
        }
        return result
    }
}
