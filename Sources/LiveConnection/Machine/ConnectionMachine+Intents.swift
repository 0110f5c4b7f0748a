// The user's intents: connect, disconnect, foreground, subscriptions, commands.
extension ConnectionMachine {
    mutating func connect(to newEndpoint: Endpoint) -> [Effect] {
        let changed = endpoint != newEndpoint
        endpoint = newEndpoint
        wanted = true
        switch state {
        case .connecting(let g), .subscribing(let g), .open(let g, _):
            // Same destination: nothing to do. A new one: only an explicit connect(to:)
            // moves the connection, and it moves at once.
            guard changed else { return [] }
            failures = 0
            lastDelay = nil
            return tearDown(g, code: .normal, reason: "endpoint changed", outcome: .outcomeUnknown)
                + startConnecting()
        case .waiting:
            // The user asked now; do not make them sit out the backoff. The backoff starts
            // over, so decorrelated jitter forgets the delay it would have grown from.
            failures = 0
            lastDelay = nil
            return [.cancelTimer(.retry)] + startConnecting()
        case .refreshing:
            // One refresh at a time: it connects (to the new endpoint) when it completes.
            return []
        case .idle, .stopped, .backgrounded:
            failures = 0
            lastDelay = nil
            return foreground ? startConnecting() : enter(.backgrounded)
        }
    }

    mutating func disconnect() -> [Effect] {
        wanted = false
        switch state {
        case .connecting(let g), .subscribing(let g), .open(let g, _):
            return tearDown(g, code: .normal, reason: "disconnected", outcome: .outcomeUnknown)
                + enter(.stopped(reason: "disconnected"))
        case .waiting:
            return [.cancelTimer(.retry)] + enter(.stopped(reason: "disconnected"))
        case .refreshing, .backgrounded, .idle:
            return enter(.stopped(reason: "disconnected"))
        case .stopped:
            return []
        }
    }

    mutating func setForeground(_ value: Bool) -> [Effect] {
        guard value != foreground else { return [] }
        foreground = value
        if !value {
            // Background: close the socket, keep wanting it (phoenix 3161 reconnected never).
            switch state {
            case .connecting(let g), .subscribing(let g), .open(let g, _):
                return tearDown(g, code: .goingAway, reason: "backgrounded", outcome: .outcomeUnknown)
                    + enter(.backgrounded)
            case .waiting:
                return [.cancelTimer(.retry)] + enter(.backgrounded)
            case .refreshing, .idle, .stopped, .backgrounded:
                return []  // a refresh finishing in the background lands in .backgrounded
            }
        }
        // Foreground: reconnect at once if wanted.
        guard case .backgrounded = state, wanted else { return [] }
        failures = 0
        lastDelay = nil
        return startConnecting()
    }

    mutating func subscribe(_ topic: String) -> [Effect] {
        guard !topics.contains(topic) else { return [] }
        topics.append(topic)
        // While connected, send at once; otherwise the next open resubscribes everything.
        guard let g = connectedGeneration else { return [] }
        if case .subscribing = state {
            // Not open until the transport took this one too.
            flushesPending += 1
            return [.send(g, .subscribe(topic)), .flush(g)]
        }
        return [.send(g, .subscribe(topic))]
    }

    mutating func unsubscribe(_ topic: String) -> [Effect] {
        guard let index = topics.firstIndex(of: topic) else { return [] }
        topics.remove(at: index)
        guard let g = connectedGeneration else { return [] }
        return [.send(g, .unsubscribe(topic))]
    }

    mutating func send(_ id: CommandID) -> [Effect] {
        // No queueing for later: a command that waits for a reconnect may be stale or
        // duplicated by then. The caller decides what to do with "not connected".
        guard case .open(let g, _) = state else { return [.completeCommand(id, .notConnected)] }
        commandsInFlight.append(id)
        return [.send(g, .command(id))]
    }
}
