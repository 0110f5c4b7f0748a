public import LiveConnection
public import LiveConnectionSimulator

extension SimulationWorld {
    /// The URL of simulated endpoint `index` (the one `connect endpoint=N` in a trace means).
    public func endpoint(_ index: Int = 0) -> Endpoint { Scenario.endpoint(index) }

    /// A manager wired to this world: the simulated network, the virtual clock, a seeded
    /// random source, and the world's configuration unless another is given.
    ///
    /// ```swift
    /// let manager = world.makeManager()
    /// try await world.run(manager) { manager in
    ///     await manager.connect(to: world.endpoint())
    ///     …
    /// }
    /// ```
    ///
    /// Its phases, deliveries and gaps go into the trace's timeline as `m1 phase open`,
    /// `m1 deliver seq=3`, `m1 gap expected=3 received=5` (`m2` for the second manager, …).
    public func makeManager(
        configuration: ConnectionConfiguration? = nil, logic: (any ConnectionLogic)? = nil,
        observer: ConnectionManager.Observer? = nil
    ) -> ConnectionManager {
        let name = nextManagerName()
        return ConnectionManager(
            configuration: configuration ?? self.configuration, transport: network, clock: clock,
            random: makeRandom(), logic: logic,
            observer: { [self] input, effects in
                for line in Self.timelineLines(for: input, effects) { note("\(name) \(line)") }
                observer?(input, effects)
            })
    }

    /// What the app sees of one step of the manager: phases, deliveries (with the message's
    /// sequence number) and gaps. Timers, sends and the rest are the manager's business.
    static func timelineLines(for input: Input, _ effects: [Effect]) -> [String] {
        effects.compactMap { effect in
            switch effect {
            case .report(let phase): "phase \(phase)"
            case .deliverMessage:
                if case .received(_, let sequence?) = input { "deliver seq=\(sequence)" } else { "deliver" }
            case .reportGap(let expected, let received): "gap expected=\(expected) received=\(received)"
            default: nil
            }
        }
    }

    /// Runs `manager.run()` alongside `body` and stops the manager when `body` returns:
    /// the structured way to own a manager for the length of a test.
    public func run<Value: Sendable>(
        _ manager: ConnectionManager, _ body: @Sendable (ConnectionManager) async throws -> Value
    ) async throws -> Value {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await manager.run() }
            do {
                let value = try await body(manager)
                group.cancelAll()
                return value
            } catch {
                group.cancelAll()
                throw error
            }
        }
    }

    /// Does `action` now, in the network or (for app intents) on `manager`, and records it
    /// in the trace's schedule.
    ///
    /// ```swift
    /// await world.perform(.broadcast(topic: "room", text: "hi"))
    /// await world.perform(.resetConnection)
    /// await world.perform(.setForeground(false), on: manager)
    /// ```
    ///
    /// A stale callback is the network's (`SimulatedNetwork.armLateCallback(_:after:)`):
    /// the connection held now delivers it after the manager closes it.
    ///
    /// Every call is numbered (0, 1, 2, … in the order they are made). When a failing
    /// `.simulation` test is shrunk, candidates skip some of these calls; the shrunk trace
    /// lists the ones it kept (`kept-performs:`), and replaying it skips the same ones. A
    /// skipped call does nothing, records nothing, and returns false: a test that keeps
    /// its own account of what it did (the messages it broadcast, say) should count only
    /// the calls that returned true, or its expectation would blame the model for an
    /// action shrinking took away. Actions noted with ``record(_:)`` are never skipped.
    ///
    /// - Returns: whether the action was done (false only while shrinking or replaying a
    ///   shrunk trace).
    /// - Throws: ``SimulationWorldError/needsManager(_:)`` for an app intent without a
    ///   manager.
    @discardableResult
    public func perform(_ action: SimulationAction, on manager: ConnectionManager? = nil)
        async throws(SimulationWorldError) -> Bool
    {
        let intent: Bool
        switch action {
        case .setForeground, .connect, .disconnect, .disconnectWith, .send, .ping, .subscribe, .unsubscribe,
            .path:
            intent = true
        default: intent = false
        }
        if intent, manager == nil { throw .needsManager(action) }
        // Recorded before it is done: a send completes later, but it was asked for now.
        guard admit(action) else { return false }
        switch action {
        case _ where network.apply(action): break
        case .deliverStale(let callback, let linger): network.armLateCallback(callback, after: linger)
        case .setForeground(let foreground): await manager?.setForeground(foreground)
        case .connect(let index): await manager?.connect(to: endpoint(index))
        case .disconnect: await manager?.disconnect()
        case .disconnectWith(let code, let reason):
            // A refused code changes nothing; the test sees that through the manager.
            try? await manager?.disconnect(code: code, reason: reason)
        case .subscribe(let topic): await manager?.subscribe(topic)
        case .unsubscribe(let topic): await manager?.unsubscribe(topic)
        case .send(let text):
            // The outcome is the test's business (send through the manager to see it); the
            // trace records that the command was asked for.
            try? await manager?.send(text: text)
        case .ping(let timeout):
            // The same: the trace records that the ping was asked for.
            _ = await manager?.ping(timeout: timeout)
        case .path(let viable):
            // The network loses (or regains) the path, and the app's path monitor says so.
            network.setPathAvailable(viable)
            await manager?.setPathViable(viable)
        default: preconditionFailure("\(action) was rejected or applied above")
        }
        return true
    }
}

/// An action ``SimulationWorld/perform(_:on:)`` cannot do.
public enum SimulationWorldError: Error, Hashable, Sendable, CustomStringConvertible {
    /// An app intent (connect, subscribe, …) was performed without a manager to do it.
    case needsManager(SimulationAction)

    public var description: String {
        switch self {
        case .needsManager(let action): "'\(action.traceWords)' is an app intent: pass the manager to perform(_:on:)"
        }
    }
}
