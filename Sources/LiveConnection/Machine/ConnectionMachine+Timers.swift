// Timers and credentials.
extension ConnectionMachine {
    mutating func timerFired(_ timer: TimerID, using random: inout some RandomSource) -> [Effect] {
        switch (timer, state) {
        case (.retry, .waiting):
            return startConnecting()

        case (.connectTimeout(let g), .connecting(let live)) where g == live,
            (.connectTimeout(let g), .subscribing(let live)) where g == live:
            return tearDown(g, code: .normal, reason: "connect timeout", outcome: .outcomeUnknown)
                + scheduleRetry(reason: "connect timeout", using: &random)

        case (.heartbeat(let g), .open(let live, let awaitingPong)) where g == live:
            // Fixed cadence: the next ping is P after this one. The deadline runs from the
            // oldest unanswered ping, so a dead peer is caught within P + T.
            var effects: [Effect] = [.ping(g), .startTimer(.heartbeat(g), configuration.heartbeatInterval)]
            if !awaitingPong {
                state = .open(g, awaitingPong: true)
                effects.append(.startTimer(.pongDeadline(g), configuration.heartbeatTimeout))
            }
            return effects

        case (.pongDeadline(let g), .open(let live, true)) where g == live:
            return tearDown(g, code: .goingAway, reason: "heartbeat missed", outcome: .outcomeUnknown)
                + scheduleRetry(reason: "heartbeat missed", using: &random)

        default:
            // A timer of a state we already left: the shell cancels timers, so this only
            // happens when a fire races a cancel. Either way it changes nothing.
            return []
        }
    }

    mutating func credentialsRefreshed(_ succeeded: Bool, using random: inout some RandomSource) -> [Effect] {
        // The one refresh in flight answered, whatever state the machine is in now.
        refreshInFlight = false
        guard case .refreshing(let reason) = state else { return [] }
        guard wanted else { return enter(.stopped(reason: "disconnected")) }
        guard foreground else { return enter(.backgrounded) }
        guard succeeded else { return scheduleRetry(reason: "credentials refresh failed", using: &random) }
        // Reconnect with the fresh credentials; if tokens keep expiring without an open in
        // between, back off like any other failure instead of hot-looping.
        let delay = configuration.backoff.delay(afterFailures: failures - 1, previous: lastDelay, using: &random)
        if delay == .zero { return startConnecting() }
        lastDelay = delay
        state = .waiting(reason: reason)
        return [.startTimer(.retry, delay), .report(phase)]
    }
}
