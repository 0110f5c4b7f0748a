import LiveConnection
public import LiveConnectionTraces

// Stale callbacks, the way a real socket produces them: an old connection delivers them on
// its own stream after the manager ended its generation. Nothing reaches the manager but
// what its transport returns.
extension SimulatedNetwork {
    /// Arms a connection to deliver `callback` late, after the client closed it (or, for
    /// `StaleCallback.open`, after the client gave its handshake up). Returns false if
    /// there is nothing to arm.
    ///
    /// ```swift
    /// network.armLateCallback(.close, after: .seconds(2))
    /// // later the manager tears the connection down (a reconnect, a new endpoint): its close
    /// // lingers 2 s, then the shell's receive loop reads "1011 late close" on it, tagged
    /// // with the generation that ended, while a newer generation may be open
    /// ```
    ///
    /// - `message`, `close`, `error`, `pong` arm the connection the client holds now (the
    ///   newest). When the client closes it, the close lingers `after` (the closing
    ///   handshake: the client reads on until the server's close arrives) and then the
    ///   connection delivers, to a `receive()` still pending on it, the last frame the
    ///   server logged, a close frame (1011 "late close"), an ECONNRESET, or the pong to the
    ///   oldest ping still in flight. The close completes once the callback was taken (or no one
    ///   is left to take it). With `after` zero the close does not linger: the callback
    ///   is simply there for a `receive()` that looks after the close.
    /// - `open` arms the newest attempt whose handshake is in progress (or, if none is, the
    ///   next one to start): if the client gives it up, its handshake completes anyway, and
    ///   `connect` returns an open connection the client no longer wants. `after` is
    ///   ignored: a given-up attempt cannot be made to wait.
    ///
    /// A callback that can reach no one (the connection's reader already saw its ending,
    /// no ping is in flight) is dropped when the client closes.
    @discardableResult
    public func armLateCallback(_ callback: StaleCallback, after linger: Duration = .zero) -> Bool {
        precondition(linger >= .zero, "a late callback's linger must not be negative, got \(linger)")
        return state.withLock { state in
            if callback == .open {
                state.lateOpenAttempt = state.attemptsInProgress.last ?? state.wireAttempts + 1
                return true
            }
            guard let index = state.held.last else { return false }
            state.links[index].late = LateCallback(kind: callback, after: linger)
            return true
        }
    }

    /// Forgets every armed late callback and wakes the closes that linger for one (the run
    /// is over: a socket the harness closes while its generation is live would deliver its
    /// "late" callback to that live generation, which is no stale callback at all).
    public func disarmLateCallbacks() {
        let bells = state.withLock { state in
            state.lateOpenAttempt = nil
            let armed = state.links.indices.filter { state.links[$0].late != nil }
            for index in armed { state.links[index].late = nil }
            return armed.map { state.links[$0].doorbell }
        }
        bells.forEach { $0.ring() }
    }
}
