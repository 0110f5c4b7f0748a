import LiveConnection
public import LiveConnectionTraces

extension SimulatedNetwork {
    /// Carries out a server or network action of a schedule.
    ///
    /// ```swift
    /// network.apply(.resetConnection)   // true: done
    /// network.apply(.setForeground(false))   // false: an app intent needs the manager
    /// ```
    ///
    /// Returns `false`, doing nothing, for the app's intents and for stale callbacks: those
    /// need a manager, and the caller (a ``SimulationRun`` or a test's world) does them.
    @discardableResult
    public func apply(_ action: SimulationAction) -> Bool {
        switch action {
        case .refuseConnections(let on): refuseConnections(on)
        case .failHandshakes(let status): failHandshakes(status: status)
        case .hangHandshakes(let on): hangHandshakes(on)
        case .broadcast(let topic, let text): broadcast(topic: topic, text: text)
        case .closeConnection(let code, let reason): closeAll(code: code, reason: reason)
        case .resetConnection: resetAll()
        case .freeze: freeze()
        case .thaw: thaw()
        case .setLatency(let latency): setLatency(latency)
        case .restartServer: restart()
        case .setIdleTimeout(let timeout): setIdleTimeout(timeout)
        case .hostile(let behaviour): setHostile(behaviour)
        case .duplicateNextCallback: duplicateNextFrame()
        case .delaySendCompletion: delayNextSendCompletion()
        case .deliverStale, .setForeground, .connect, .disconnect, .disconnectWith, .send, .ping, .subscribe,
            .unsubscribe, .path:
            // The path is the network's and the app's: the caller does both (``setPathAvailable(_:)``).
            return false
        }
        return true
    }
}
