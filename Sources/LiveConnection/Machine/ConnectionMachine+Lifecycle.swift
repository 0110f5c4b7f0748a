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
        var answers: [Effect] = []
        switch state {
        case .connecting(g), .subscribing(g, _):
            effects = [.cancelTimer(.connectTimeout(g))]
        case .open(g, let connection):
            effects = [.cancelTimer(.heartbeat(g))]
            if connection.awaitingPong { effects.append(.cancelTimer(.pongDeadline(g))) }
            commands = connection.commandsInFlight
            // The app's pings die with the connection: each answered once, below (the once-gate:
            // a late answer or deadline finds it gone from the state and changes nothing).
            effects += connection.pingsInFlight.map { .cancelTimer(.pingDeadline($0)) }
            answers = connection.pingsInFlight.map { .completePing($0, .failed(.connectionEnded)) }
        case .idle, .connecting, .subscribing, .open, .waiting, .refreshing, .backgrounded, .offline, .stopped:
            preconditionFailure("tearing down \(g) in state \(state)")
        }
        effects.append(.closeConnection(g, code: code, reason: reason))
        // The caller moves to the next state, which drops the payload (flushes, commands).
        return effects + commands.map { .completeCommand($0, outcome) } + answers
    }

    /// Starts an attempt, unless the app reported the path unviable: then offline, until it
    /// reports the path back.
    mutating func connectIfPathViable() -> [Effect] {
        pathViable ? startConnecting() : enter(.offline)
    }

    /// One more failure: draw the delay, wait, report why (and the server's close frame, if
    /// one ended the connection). Without a path it is no failure: the attempt could not
    /// have succeeded, so nothing is counted or drawn, and the machine waits offline.
    mutating func scheduleRetry(
        reason: String, close: CloseFrame? = nil, using random: inout some RandomSource
    ) -> [Effect] {
        guard pathViable else { return enter(.offline) }
        failures += 1
        // The app's opt-in limit wins over "wanted until disconnect": it asked to be told
        // instead of retrying forever (stop clears `wanted`; only connect(to:) starts over).
        // It counts what the backoff counts: failures since a connection last proved itself.
        if let limit = configuration.maximumAttempts, failures >= limit {
            return stop(reason: "gave up after \(failures) attempts", close: close)
        }
        let delay = configuration.backoff.delay(afterFailures: failures, previous: lastDelay, using: &random)
        lastDelay = delay
        state = .waiting(reason: reason, close: close)
        return [.startTimer(.retry, delay), .report(phase)]
    }

    /// Credentials expired (a refresh close code or handshake status). After-expiry timing
    /// refreshes them; before-every-connect timing needs no refresh: the next attempt fetches
    /// fresh ones anyway, so the expiry is one more failure, retried with the delay the refresh
    /// path would wait after its refresh (at once after a proven connection; longer each time
    /// the fresh credentials did not help).
    mutating func credentialsExpired(
        reason: String, close: CloseFrame?, using random: inout some RandomSource
    ) -> [Effect] {
        switch configuration.credentialsTiming {
        case .afterExpiry:
            return beginRefresh(reason: reason, close: close)
        case .beforeEveryConnect:
            // Counted even without a path, as a refresh's expiry is: the server answered, so
            // this was no outage (the path's return then retries with the count it made).
            failures += 1
            if let limit = configuration.maximumAttempts, failures >= limit {
                return stop(reason: "gave up after \(failures) attempts", close: close)
            }
            guard pathViable else { return enter(.offline) }
            let delay = configuration.backoff.delay(afterFailures: failures - 1, previous: lastDelay, using: &random)
            if delay == .zero {
                lastDelay = .zero
                return startConnecting()
            }
            lastDelay = delay
            state = .waiting(reason: reason, close: close)
            return [.startTimer(.retry, delay), .report(phase)]
        }
    }

    /// Credentials expired: one refresh, however many triggers (the state absorbs the rest
    /// while refreshing; `refreshInFlight` absorbs a trigger that comes after the machine left
    /// a refresh, e.g. disconnect, connect, 4001 again, before the provider answered).
    mutating func beginRefresh(reason: String, close: CloseFrame? = nil) -> [Effect] {
        // Counted even without a path: the server's expiry is no outage (it answered), and the
        // refresh's answer draws the delay for one failure fewer, which needs this one.
        failures += 1
        // The limit counts it like any failure, as it does with credentials fetched before every
        // connect: a server that answers 401 to every handshake is given up on, not refreshed
        // forever (found by the swarm's attempt limits: attempt 3 of 2, and never a give-up).
        if let limit = configuration.maximumAttempts, failures >= limit {
            return stop(reason: "gave up after \(failures) attempts", close: close)
        }
        lastDelay = .zero
        state = .refreshing(reason: reason, close: close)
        guard !refreshInFlight else { return [.report(phase)] }
        refreshInFlight = true
        return [.refreshCredentials, .report(phase)]
    }

    /// Terminal: retrying would be refused again. Only `connect(to:)` leaves this.
    mutating func stop(reason: String, close: CloseFrame? = nil) -> [Effect] {
        wanted = false
        return enter(.stopped(reason: reason, close: close))
    }

    mutating func enter(_ next: State) -> [Effect] {
        state = next
        return [.report(phase)]
    }
}
