// The steps the transitions share: start an attempt, tear a connection down, back off.
extension ConnectionMachine {
    /// Mints a generation and starts an attempt to the current endpoint.
    mutating func startConnecting() -> [Effect] {
        guard let endpoint else { preconditionFailure("connecting with no endpoint (state \(state))") }
        generation = generation.next
        state = .connecting(generation)
        return [
            .report(phase),
            .openConnection(generation, endpoint),
            .startTimer(.connectTimeout(generation), configuration.connectTimeout),
        ]
    }

    /// Ends generation `g`: disarms its timers, closes it, and answers every command in
    /// flight on it (the frame may or may not have arrived: never resent).
    mutating func tearDown(_ g: Generation, code: CloseCode, reason: String, outcome: CommandOutcome) -> [Effect] {
        var effects: [Effect]
        var commands: [CommandID] = []
        switch state {
        case .connecting(g), .subscribing(g, _):
            effects = [.cancelTimer(.connectTimeout(g))]
        case .open(g, _, let awaitingPong, let inFlight):
            effects = [.cancelTimer(.heartbeat(g))]
            if awaitingPong { effects.append(.cancelTimer(.pongDeadline(g))) }
            commands = inFlight
        case .idle, .connecting, .subscribing, .open, .waiting, .refreshing, .backgrounded, .stopped:
            preconditionFailure("tearing down \(g) in state \(state)")
        }
        effects.append(.closeConnection(g, code: code, reason: reason))
        // The caller moves to the next state, which drops the payload (flushes, commands).
        return effects + commands.map { .completeCommand($0, outcome) }
    }

    /// One more failure: draw the delay, wait, report why.
    mutating func scheduleRetry(reason: String, using random: inout some RandomSource) -> [Effect] {
        failures += 1
        // The app's opt-in limit wins over "wanted until disconnect": it asked to be told
        // instead of retrying forever (stop clears `wanted`; only connect(to:) starts over).
        // It counts what the backoff counts: failures since a connection last proved itself.
        if let limit = configuration.maximumAttempts, failures >= limit {
            return stop(reason: "gave up after \(failures) attempts")
        }
        let delay = configuration.backoff.delay(afterFailures: failures, previous: lastDelay, using: &random)
        lastDelay = delay
        state = .waiting(reason: reason)
        return [.startTimer(.retry, delay), .report(phase)]
    }

    /// Credentials expired: one refresh, however many triggers (the state absorbs the rest
    /// while refreshing; `refreshInFlight` absorbs a trigger that comes after the machine left
    /// a refresh, e.g. disconnect, connect, 4001 again, before the provider answered).
    mutating func beginRefresh(reason: String) -> [Effect] {
        failures += 1
        lastDelay = .zero
        state = .refreshing(reason: reason)
        guard !refreshInFlight else { return [.report(phase)] }
        refreshInFlight = true
        return [.refreshCredentials, .report(phase)]
    }

    /// Terminal: retrying would be refused again. Only `connect(to:)` leaves this.
    mutating func stop(reason: String) -> [Effect] {
        wanted = false
        return enter(.stopped(reason: reason))
    }

    mutating func enter(_ next: State) -> [Effect] {
        state = next
        return [.report(phase)]
    }
}
