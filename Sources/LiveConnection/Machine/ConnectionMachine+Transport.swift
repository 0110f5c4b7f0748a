// Transport callbacks. Each first checks that its generation is the live one:
// anything else is stale and changes nothing.
extension ConnectionMachine {
    mutating func opened(_ g: Generation) -> [Effect] {
        guard case .connecting(g) = state else {
            // A late open of an abandoned attempt: close it, so two sockets never live at once
            // (socket.io 430, reconnecting-websocket PR 69).
            return [.closeConnection(g, code: .normal, reason: "stale connection")]
        }
        failures = 0
        lastDelay = nil
        state = .open(g, awaitingPong: false)
        // Resubscribe every topic, then resume, then report open: a client that
        // subscribed once would get nothing after its first reconnect.
        var effects: [Effect] = [.cancelTimer(.connectTimeout(g))]
        effects += topics.map { .send(g, .subscribe($0)) }
        if configuration.resume, let lastSequence {
            effects.append(.send(g, .resume(after: lastSequence)))
        }
        effects.append(.startTimer(.heartbeat(g), configuration.heartbeatInterval))
        effects.append(.report(.open))
        return effects
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
        guard case .open(g, let awaitingPong) = state else { return [] }
        // Any frame proves the peer alive, so a busy stream is never declared dead
        // because its pong queued behind data.
        var effects: [Effect] = []
        if awaitingPong {
            state = .open(g, awaitingPong: false)
            effects.append(.cancelTimer(.pongDeadline(g)))
        }
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
