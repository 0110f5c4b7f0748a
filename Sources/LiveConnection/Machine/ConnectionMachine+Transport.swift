// Transport callbacks. Each is a switch over the states: the live generation's callback
// moves the machine; every other cell is written out, with why it changes nothing.
extension ConnectionMachine {
    mutating func opened(_ g: Generation) -> [Effect] {
        switch state {
        case .connecting(g):
            // Resume first, then resubscribe every topic, and report open only once the
            // transport took them: a client that subscribed once would get nothing after its
            // first reconnect. Resume goes first so the server replays each topic as it is
            // subscribed; after a subscribe, a live broadcast could overtake the replay and the
            // replayed messages would be dropped as duplicates (found by `livesim explore`).
            // A client that was connected but has delivered nothing yet resumes from 0: the
            // messages of the outage are its first ones, and must not be lost either.
            var effects: [Effect] = []
            if configuration.resume, lastSequence != nil || hasBeenOpen {
                effects.append(.send(g, .control(.resume(after: lastSequence ?? 0))))
            }
            effects += topics.map { .send(g, .control(.subscribe($0))) }
            effects.append(.flush(g))
            state = .subscribing(g, flushesPending: 1)
            return effects
        case .subscribing(g, _), .open(g, _):
            // A repeated open of the live connection is not a stale one: closing it would
            // leave the machine believing in a socket the shell has closed.
            return []
        case .idle, .connecting, .subscribing, .open, .waiting, .refreshing, .backgrounded, .offline, .stopped:
            // A late open of an abandoned attempt: close it, so two sockets never live at once
            // (socket.io 430, reconnecting-websocket PR 69).
            return [.closeConnection(g, code: .normal, reason: "stale connection")]
        }
    }

    mutating func flushed(_ g: Generation) -> [Effect] {
        switch state {
        case .subscribing(g, let pending) where pending > 1:
            // A topic subscribed mid-resubscription asked for a flush of its own.
            state = .subscribing(g, flushesPending: pending - 1)
            return []
        case .subscribing(g, _):
            // The transport took every resubscription: open, but not yet proven. The failure
            // counter resets only when the connection answers its first heartbeat (see
            // `provedItself()`), so a server that accepts and closes at once is backed off
            // from like any other failure. The attempt that succeeded rides in the open state,
            // so the phase reports it for as long as the connection lasts, proof or not.
            let attempt = failures + 1
            hasBeenOpen = true
            state = .open(g, OpenConnection(attempt: attempt))
            return [
                .cancelTimer(.connectTimeout(g)),
                .startTimer(.heartbeat(g), configuration.heartbeatInterval),
                .report(.open(attempt: attempt)),
            ]
        case .idle, .connecting, .subscribing, .open, .waiting, .refreshing, .backgrounded, .offline, .stopped:
            // A flush of a connection that is not resubscribing (torn down since): nothing waits for it.
            return []
        }
    }

    mutating func connectFailed(_ g: Generation, _ error: TransportError, using random: inout some RandomSource)
        -> [Effect]
    {
        switch state {
        case .connecting(g):
            let closing = tearDown(g, code: .normal, reason: error.reason, outcome: .outcomeUnknown)
            if case .invalidURL = error {
                // Permanent: the same URL fails the same way on every attempt (a bad scheme,
                // no host, a port out of range). Stop with the reason; connect(to:) again with
                // another URL is the way out.
                return closing + stop(reason: error.description)
            }
            if case .handshakeRejected(let status) = error {
                if configuration.terminalHandshakeStatuses.contains(status) {
                    return closing + stop(reason: error.reason)
                }
                if configuration.refreshHandshakeStatuses.contains(status) {
                    return closing + credentialsExpired(reason: error.reason, close: nil, using: &random)
                }
            }
            return closing + scheduleRetry(reason: error.reason, using: &random)
        case .idle, .connecting, .subscribing, .open, .waiting, .refreshing, .backgrounded, .offline, .stopped:
            // An attempt that is not the live one (or already opened) failing: it was
            // abandoned or superseded, and its failure changes nothing.
            return []
        }
    }

    mutating func received(_ g: Generation, _ message: Message, sequence: UInt64?) -> [Effect] {
        switch state {
        case .open(g, var connection) where connection.awaitingPong:
            // Any frame proves the peer alive, so a busy stream is never declared dead
            // because its pong queued behind data.
            connection.awaitingPong = false
            state = .open(g, connection)
            provedItself()
            return [.cancelTimer(.pongDeadline(g))] + accept(message, sequence: sequence)
        case .subscribing(g, _), .open(g, _):
            // While resubscribing the server may already be sending: deliver in order.
            return accept(message, sequence: sequence)
        case .idle, .connecting, .subscribing, .open, .waiting, .refreshing, .backgrounded, .offline, .stopped:
            // A message of a dead generation (or, impossibly, before a handshake): dropped,
            // so a late frame is never delivered twice or out of order.
            return []
        }
    }

    /// Resume bookkeeping: drop duplicates, report gaps, deliver the rest in order.
    private mutating func accept(_ message: Message, sequence: UInt64?) -> [Effect] {
        var effects: [Effect] = []
        guard let sequence, configuration.resume else {
            return effects + [.deliverMessage(message, sequence: sequence)]
        }
        if let last = lastSequence {
            // A replayed duplicate: already delivered once.
            if sequence <= last { return effects }
            if sequence > last + 1 { effects.append(.reportGap(expected: last + 1, received: sequence)) }
        }
        lastSequence = sequence
        return effects + [.deliverMessage(message, sequence: sequence)]
    }

    mutating func pong(_ g: Generation) -> [Effect] {
        switch state {
        case .open(g, var connection) where connection.awaitingPong:
            // The answer to a heartbeat: the connection proved itself.
            connection.awaitingPong = false
            state = .open(g, connection)
            provedItself()
            return [.cancelTimer(.pongDeadline(g))]
        case .idle, .connecting, .subscribing, .open, .waiting, .refreshing, .backgrounded, .offline, .stopped:
            // A pong nobody waits for (a data frame already proved the peer alive, or its
            // generation is dead): nothing to disarm.
            return []
        }
    }

    /// The backoff-reset rule: a connection proves itself when it answers a heartbeat —
    /// it stayed open a full heartbeat interval P and the peer is alive end to end. Only
    /// then does the failure counter start again (ferd/backoff: it must reset). Resetting
    /// on every open let a server that accepts then closes at once be retried from the
    /// first attempt's range forever (44 connections in 3 s against a local 4001 server).
    private mutating func provedItself() {
        failures = 0
        lastDelay = nil
    }

    mutating func closedByPeer(
        _ g: Generation, _ code: CloseCode, _ reason: String, using random: inout some RandomSource
    ) -> [Effect] {
        switch state {
        case .connecting(g), .subscribing(g, _), .open(g, _):
            // The reason names the code; the close frame itself, the server's words included,
            // rides along typed, so the app need not parse either.
            let why = "closed \(code)"
            let close = CloseFrame(code: code, reason: reason)
            let closing = tearDown(g, code: code, reason: reason, outcome: .outcomeUnknown)
            if configuration.terminalCloseCodes.contains(code) { return closing + stop(reason: why, close: close) }
            if configuration.refreshCloseCodes.contains(code) {
                return closing + credentialsExpired(reason: why, close: close, using: &random)
            }
            return closing + scheduleRetry(reason: why, close: close, using: &random)
        case .idle, .connecting, .subscribing, .open, .waiting, .refreshing, .backgrounded, .offline, .stopped:
            // A dead generation's close: its socket is already gone from the machine's view.
            return []
        }
    }

    mutating func failed(_ g: Generation, _ error: TransportError, using random: inout some RandomSource)
        -> [Effect]
    {
        switch state {
        case .connecting(g), .subscribing(g, _), .open(g, _):
            return tearDown(g, code: .abnormal, reason: error.reason, outcome: .outcomeUnknown)
                + scheduleRetry(reason: error.reason, using: &random)
        case .idle, .connecting, .subscribing, .open, .waiting, .refreshing, .backgrounded, .offline, .stopped:
            // A dead generation's error: it was torn down already, and must not cost a retry.
            return []
        }
    }

    mutating func pingAnswered(_ g: Generation, _ id: PingID) -> [Effect] {
        switch state {
        case .open(g, var connection):
            // Answered already (its deadline passed): the once-gate keeps the first outcome.
            guard let index = connection.pingsInFlight.firstIndex(of: id) else { return [] }
            connection.pingsInFlight.remove(at: index)
            state = .open(g, connection)
            return [.cancelTimer(.pingDeadline(id)), .completePing(id, .alive)]
        case .idle, .connecting, .subscribing, .open, .waiting, .refreshing, .backgrounded, .offline, .stopped:
            // A late answer of a dead generation: the ping was answered "connection ended" at teardown.
            return []
        }
    }

    mutating func sendCompleted(_ g: Generation, _ id: CommandID) -> [Effect] {
        switch state {
        case .open(g, var connection):
            // Not in flight: answered already (it cannot be, while open; kept total).
            guard let index = connection.commandsInFlight.firstIndex(of: id) else { return [] }
            connection.commandsInFlight.remove(at: index)
            state = .open(g, connection)
            return [.completeCommand(id, .sent)]
        case .idle, .connecting, .subscribing, .open, .waiting, .refreshing, .backgrounded, .offline, .stopped:
            // A stale completion was already answered "outcome unknown" at teardown.
            return []
        }
    }
}
