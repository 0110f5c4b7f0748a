// The user's intents: connect, disconnect, foreground, subscriptions, commands.
extension ConnectionMachine {
    mutating func connect(to newEndpoint: Endpoint) -> [Effect] {
        let changed = endpoint != newEndpoint
        endpoint = newEndpoint
        wanted = true
        switch state {
        case .connecting(let g), .subscribing(let g, _), .open(let g, _):
            // Same destination: nothing to do. A new one: only an explicit connect(to:)
            // moves the connection, and it moves at once.
            guard changed else { return [] }
            failures = 0
            lastDelay = nil
            return tearDown(g, code: .normal, reason: "endpoint changed", outcome: .outcomeUnknown)
                + connectIfPathViable()
        case .waiting:
            // The user asked now; do not make them sit out the backoff. The backoff starts
            // over, so decorrelated jitter forgets the delay it would have grown from.
            failures = 0
            lastDelay = nil
            return [.cancelTimer(.retry)] + startConnecting()
        case .refreshing:
            // One refresh at a time: it connects (to the new endpoint) when it completes.
            return []
        case .offline:
            // The user asked, but there is no path: the return of the path connects, to the
            // new endpoint, with a fresh backoff.
            failures = 0
            lastDelay = nil
            return []
        case .idle, .stopped, .backgrounded:
            failures = 0
            lastDelay = nil
            return foreground ? connectIfPathViable() : enter(.backgrounded)
        }
    }

    mutating func disconnect(code: CloseCode, reason: String) -> [Effect] {
        wanted = false
        switch state {
        case .connecting(let g), .subscribing(let g, _), .open(let g, _):
            // The app's own code and reason go to the server (the shell checked them against RFC 6455).
            return tearDown(g, code: code, reason: reason, outcome: .outcomeUnknown)
                + enter(.stopped(reason: "disconnected"))
        case .waiting:
            return [.cancelTimer(.retry)] + enter(.stopped(reason: "disconnected"))
        case .refreshing, .backgrounded, .offline, .idle:
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
            case .connecting(let g), .subscribing(let g, _), .open(let g, _):
                return tearDown(g, code: .goingAway, reason: "backgrounded", outcome: .outcomeUnknown)
                    + enter(.backgrounded)
            case .waiting:
                return [.cancelTimer(.retry)] + enter(.backgrounded)
            case .offline:
                return enter(.backgrounded)
            case .refreshing, .idle, .stopped, .backgrounded:
                return []  // a refresh finishing in the background lands in .backgrounded
            }
        }
        switch state {
        case .backgrounded where wanted:
            // Foreground: reconnect at once, with a fresh backoff (if there is a path to do it on).
            failures = 0
            lastDelay = nil
            return connectIfPathViable()
        case .idle, .connecting, .subscribing, .open, .waiting, .refreshing, .backgrounded, .offline, .stopped:
            // Nothing was held back by the background (a refresh that finishes now connects itself).
            return []
        }
    }

    mutating func subscribe(_ topic: String) -> [Effect] {
        guard !topics.contains(topic) else { return [] }
        topics.append(topic)
        // While connected, send at once; otherwise the next open resubscribes everything.
        switch state {
        case .subscribing(let g, let pending):
            // Not open until the transport took this one too.
            state = .subscribing(g, flushesPending: pending + 1)
            return [.send(g, .control(.subscribe(topic))), .flush(g)]
        case .open(let g, _):
            return [.send(g, .control(.subscribe(topic)))]
        case .idle, .connecting, .waiting, .refreshing, .backgrounded, .offline, .stopped:
            // No socket to send on: the next open resubscribes every topic.
            return []
        }
    }

    mutating func unsubscribe(_ topic: String) -> [Effect] {
        guard let index = topics.firstIndex(of: topic) else { return [] }
        topics.remove(at: index)
        switch state {
        case .subscribing(let g, _), .open(let g, _):
            return [.send(g, .control(.unsubscribe(topic)))]
        case .idle, .connecting, .waiting, .refreshing, .backgrounded, .offline, .stopped:
            // No socket: the next open subscribes only the topics still wanted.
            return []
        }
    }

    mutating func ping(_ id: PingID, timeout: Duration) -> [Effect] {
        switch state {
        case .open(let g, var connection):
            // Sent on the open connection; answered by its pong, its deadline or its teardown,
            // whichever comes first, and only that one.
            connection.pingsInFlight.append(id)
            state = .open(g, connection)
            return [.sendPing(g, id), .startTimer(.pingDeadline(id), timeout)]
        case .idle, .connecting, .subscribing, .waiting, .refreshing, .backgrounded, .offline, .stopped:
            // Nothing to ping: answered at once (a connection that is still resubscribing is
            // not open to the app either).
            return [.completePing(id, .failed(.notConnected))]
        }
    }

    mutating func send(_ id: CommandID) -> [Effect] {
        switch state {
        case .open(let g, var connection):
            connection.commandsInFlight.append(id)
            state = .open(g, connection)
            return [.send(g, .command(id))]
        case .idle, .connecting, .subscribing, .waiting, .refreshing, .backgrounded, .offline, .stopped:
            // No queueing for later: a command that waits for a reconnect may be stale or
            // duplicated by then. The caller decides what to do with "not connected".
            return [.completeCommand(id, .notConnected)]
        }
    }
}
