// Timers and credentials.
extension ConnectionMachine {
    mutating func timerFired(_ timer: TimerID, using random: inout some RandomSource) -> [Effect] {
        // Every "changes nothing" cell below is a timer of a state already left: the shell
        // cancels timers, so it only fires when a fire races a cancel.
        switch timer {
        case .retry:
            switch state {
            case .waiting:
                return startConnecting()
            case .idle, .connecting, .subscribing, .open, .refreshing, .backgrounded, .offline, .stopped:
                return []  // the wait was ended by connect, disconnect, the background or the path
            }

        case .connectTimeout(let g):
            switch state {
            case .connecting(g), .subscribing(g, _):
                return tearDown(g, code: .normal, reason: "connect timeout", outcome: .outcomeUnknown)
                    + scheduleRetry(reason: "connect timeout", using: &random)
            case .idle, .connecting, .subscribing, .open, .waiting, .refreshing, .backgrounded, .offline, .stopped:
                return []  // g opened, or was torn down
            }

        case .heartbeat(let g):
            switch state {
            case .open(g, var connection):
                // Fixed cadence: the next ping is P after this one. The deadline runs from the
                // oldest unanswered ping, so a dead peer is caught within P + T.
                var effects: [Effect] = [.ping(g), .startTimer(.heartbeat(g), configuration.heartbeatInterval)]
                if !connection.awaitingPong {
                    connection.awaitingPong = true
                    state = .open(g, connection)
                    effects.append(.startTimer(.pongDeadline(g), configuration.heartbeatTimeout))
                }
                return effects
            case .idle, .connecting, .subscribing, .open, .waiting, .refreshing, .backgrounded, .offline, .stopped:
                return []  // g was torn down
            }

        case .pingDeadline(let id):
            switch state {
            case .open(let g, var connection):
                // Answered already (by its pong): the once-gate keeps the first outcome.
                guard let index = connection.pingsInFlight.firstIndex(of: id) else { return [] }
                connection.pingsInFlight.remove(at: index)
                state = .open(g, connection)
                // Reported, not acted on: the heartbeat alone decides that a peer is dead.
                return [.completePing(id, .noAnswer)]
            case .idle, .connecting, .subscribing, .waiting, .refreshing, .backgrounded, .offline, .stopped:
                return []  // answered at teardown
            }

        case .pongDeadline(let g):
            switch state {
            case .open(g, let connection) where connection.awaitingPong:
                return tearDown(g, code: .goingAway, reason: "heartbeat missed", outcome: .outcomeUnknown)
                    + scheduleRetry(reason: "heartbeat missed", using: &random)
            case .idle, .connecting, .subscribing, .open, .waiting, .refreshing, .backgrounded, .offline, .stopped:
                return []  // the pong (or any frame) came, or g was torn down
            }
        }
    }

    mutating func credentialsRefreshed(_ succeeded: Bool, using random: inout some RandomSource) -> [Effect] {
        // The one refresh in flight answered, whatever state the machine is in now.
        refreshInFlight = false
        let reason: String
        let close: CloseFrame?
        switch state {
        case .refreshing(let why, let frame):
            reason = why
            close = frame
        case .idle, .connecting, .subscribing, .open, .waiting, .backgrounded, .offline, .stopped:
            // The machine left the refresh (disconnect, connect, background): the next
            // trigger asks again; this answer only clears `refreshInFlight`.
            return []
        }
        guard wanted else { return enter(.stopped(reason: "disconnected")) }
        guard foreground else { return enter(.backgrounded) }
        // No path: neither an attempt nor a wait, and the refresh's outcome counts nothing.
        guard pathViable else { return enter(.offline) }
        guard succeeded else {
            return scheduleRetry(reason: "credentials refresh failed", close: close, using: &random)
        }
        // Reconnect with the fresh credentials; if tokens keep expiring without an open in
        // between, back off like any other failure instead of hot-looping.
        let delay = configuration.backoff.delay(afterFailures: failures - 1, previous: lastDelay, using: &random)
        if delay == .zero { return startConnecting() }
        lastDelay = delay
        state = .waiting(reason: reason, close: close)
        return [.startTimer(.retry, delay), .report(phase)]
    }
}
