// Transport callbacks. Each first checks that its generation is the live one:
// anything else is stale and changes nothing.
extension ConnectionMachine {
    mutating func opened(_ g: Generation) -> [Effect] {
        // A repeated open of the live connection is not a stale one: closing it would leave
        // the machine believing in a socket the shell has closed.
        if connectedGeneration == g { return [] }
        guard case .connecting(g) = state else {
            // A late open of an abandoned attempt: close it, so two sockets never live at once
            // (socket.io 430, reconnecting-websocket PR 69).
            return [.closeConnection(g, code: .normal, reason: "stale connection")]
        }
        state = .subscribing(g)
        // Resume first, then resubscribe every topic, and report open only once the
        // transport took them: a client that subscribed once would get nothing after its
        // first reconnect. Resume goes first so the server replays each topic as it is
        // subscribed; after a subscribe, a live broadcast could overtake the replay and the
        // replayed messages would be dropped as duplicates (found by `livesim explore`).
        // A client that was connected but has delivered nothing yet resumes from 0: the
        // messages of the outage are its first ones, and must not be lost either.
        var effects: [Effect] = []
        if configuration.resume, lastSequence != nil || hasBeenOpen {
            effects.append(.send(g, .resume(after: lastSequence ?? 0)))
        }
        effects += topics.map { .send(g, .subscribe($0)) }
        effects.append(.flush(g))
        flushesPending = 1
        return effects
    }

    mutating func flushed(_ g: Generation) -> [Effect] {
        guard case .subscribing(g) = state else { return [] }
        flushesPending -= 1
        guard flushesPending == 0 else { return [] }
        // A success: the failure counter starts again (ferd/backoff: it must reset).
        failures = 0
        lastDelay = nil
        hasBeenOpen = true
        state = .open(g, awaitingPong: false)
        return [
            .cancelTimer(.connectTimeout(g)),
            .startTimer(.heartbeat(g), configuration.heartbeatInterval),
            .report(.open),
        ]
    }

    mutating func connectFailed(_ g: Generation, _ error: TransportError, using random: inout some RandomSource)
        -> [Effect]
    {
        guard case .connecting(g) = state else { return [] }
        if case .handshakeRejected(let status) = error {
            if configuration.terminalHandshakeStatuses.contains(status) {
                return tearDown(g, code: .normal, reason: error.reason, outcome: .outcomeUnknown)
                    + stop(reason: error.reason)
            }
            if configuration.refreshHandshakeStatuses.contains(status) {
                return tearDown(g, code: .normal, reason: error.reason, outcome: .outcomeUnknown)
                    + beginRefresh(reason: error.reason)
            }
        }
        return tearDown(g, code: .normal, reason: error.reason, outcome: .outcomeUnknown)
            + scheduleRetry(reason: error.reason, using: &random)
    }

    mutating func received(_ g: Generation, sequence: UInt64?) -> [Effect] {
        switch state {
        case .subscribing(g), .open(g, awaitingPong: false):
            // While resubscribing the server may already be sending: deliver in order.
            return accept(sequence: sequence)
        case .open(g, awaitingPong: true):
            // Any frame proves the peer alive, so a busy stream is never declared dead
            // because its pong queued behind data.
            state = .open(g, awaitingPong: false)
            return [.cancelTimer(.pongDeadline(g))] + accept(sequence: sequence)
        default:
            return []
        }
    }

    /// Resume bookkeeping: drop duplicates, report gaps, deliver the rest in order.
    private mutating func accept(sequence: UInt64?) -> [Effect] {
        var effects: [Effect] = []
        guard let sequence, configuration.resume else { return effects + [.deliverMessage] }
        if let last = lastSequence {
            // A replayed duplicate: already delivered once.
            if sequence <= last { return effects }
            if sequence > last + 1 { effects.append(.reportGap(expected: last + 1, received: sequence)) }
        }
        lastSequence = sequence
        return effects + [.deliverMessage]
    }

    mutating func pong(_ g: Generation) -> [Effect] {
        guard case .open(g, true) = state else { return [] }
        state = .open(g, awaitingPong: false)
        return [.cancelTimer(.pongDeadline(g))]
    }

    mutating func closedByPeer(
        _ g: Generation, _ code: CloseCode, _ reason: String, using random: inout some RandomSource
    ) -> [Effect] {
        guard liveGeneration == g else { return [] }
        let why = "closed \(code)"
        let closing = tearDown(g, code: code, reason: reason, outcome: .outcomeUnknown)
        if configuration.terminalCloseCodes.contains(code) { return closing + stop(reason: why) }
        if configuration.refreshCloseCodes.contains(code) { return closing + beginRefresh(reason: why) }
        return closing + scheduleRetry(reason: why, using: &random)
    }

    mutating func failed(_ g: Generation, _ error: TransportError, using random: inout some RandomSource)
        -> [Effect]
    {
        guard liveGeneration == g else { return [] }
        return tearDown(g, code: .abnormal, reason: error.reason, outcome: .outcomeUnknown)
            + scheduleRetry(reason: error.reason, using: &random)
    }

    mutating func sendCompleted(_ g: Generation, _ id: CommandID) -> [Effect] {
        // A stale completion was already answered "outcome unknown" at teardown.
        guard liveGeneration == g, let index = commandsInFlight.firstIndex(of: id) else { return [] }
        commandsInFlight.remove(at: index)
        return [.completeCommand(id, .sent)]
    }
}
