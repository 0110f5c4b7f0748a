// The network path, as the app's path monitor reports it.
extension ConnectionMachine {
    /// Without a path, attempts cannot succeed: none is made, none is counted, and nothing
    /// waits on a backoff timer (a wait would end in an attempt that fails and burns the
    /// backoff). When the path returns, the machine connects at once, with the failures it
    /// had (only a proven connection starts the count again, so a flapping path does not
    /// reset the backoff). An open connection is kept either way — a path monitor's report
    /// can be brief or wrong, and a working socket is worth more than a new one — but it
    /// must answer a ping within T, so one that died with the path is found in T, not P + T.
    mutating func setPathViable(_ value: Bool) -> [Effect] {
        guard value != pathViable else { return [] }  // a repeated report changes nothing
        pathViable = value
        switch state {
        case .connecting(let g), .subscribing(let g, _):
            // Lost: the attempt in flight went out on the old path; abandon it without counting
            // it, so the path's return starts a fresh one at once. (Back: it is already trying.)
            guard !value else { return [] }
            return tearDown(g, code: .goingAway, reason: "network path lost", outcome: .outcomeUnknown)
                + enter(.offline)
        case .open(_, let connection) where connection.awaitingPong:
            // A ping is already unanswered: its deadline is the probe.
            return []
        case .open(let g, var connection):
            // Lost or back: probe the connection now rather than at the next heartbeat.
            connection.awaitingPong = true
            state = .open(g, connection)
            return [.ping(g), .startTimer(.pongDeadline(g), configuration.heartbeatTimeout)]
        case .waiting:
            // Lost: the retry would fail; wait for the path instead. (Back cannot happen: the
            // machine only waits with a path.)
            guard !value else { return [] }
            return [.cancelTimer(.retry)] + enter(.offline)
        case .offline:
            // Back: connect at once, counting as before. (Lost cannot happen: the machine is
            // offline only without a path.)
            guard value else { return [] }
            return startConnecting()
        case .idle, .refreshing, .backgrounded, .stopped:
            // Nothing to attempt now: the next connect(to:), foreground or refresh answer
            // reads the path when it would connect.
            return []
        }
    }
}
