import LiveConnection
import SimulationKernel

extension SimulatedNetwork {
    /// The invariant monitor's questions for one step, answered under one lock: before it,
    /// each step took the lock (and read the clock) once per question, seven to nine times, and
    /// copied the open connection into a full ``LinkTruth`` only to read its `deadSince`.
    ///
    /// Idle timeouts are settled up to now exactly when the questions one at a time would
    /// have settled them (the held connections are read, or a new connection is), so the
    /// network's own counters do not depend on how the monitor asks.
    public func snapshot(_ questions: WorldQuestions) -> WorldSnapshot {
        let now = clock.now
        return state.withLock { state in
            var snapshot = WorldSnapshot(questions: questions)
            let hasNewLinks = questions.linksFrom < state.links.count
            if questions.timeChecks || hasNewLinks { state.settleAll(now: now) }
            if hasNewLinks { snapshot.newLinks = state.links[questions.linksFrom...].map { state.truth(of: $0) } }
            snapshot.replayableFrom = state.server.oldestRetained
            snapshot.lastSendDelayedAt = state.lastSendDelayedAt
            guard questions.timeChecks else { return snapshot }
            snapshot.held = state.held.map { state.heldLink(at: $0) }
            if let g = questions.watching {
                // The live generation's link is one of the last few: search from the end.
                let index = state.links.lastIndex { $0.generation == g }
                snapshot.watched = WorldSnapshot.Watched(
                    generation: g, hasLink: index != nil,
                    deadSince: index.flatMap { state.deadSince(of: state.links[$0]) })
            }
            snapshot.welcomesConnections = state.welcomesConnections(heartbeatInterval: questions.heartbeatInterval)
            snapshot.commandCount = state.server.commands.total
            if snapshot.commandCount > questions.commandsFrom {
                snapshot.newCommands = state.server.commands.since(questions.commandsFrom)
            }
            return snapshot
        }
    }
}

extension SimulatedNetwork.State {
    /// What `single-live-transport` reads of held link `index` (``LinkTruth`` without the
    /// endpoint, the subscribes and the close frames, which it does not read).
    fileprivate func heldLink(at index: Int) -> WorldSnapshot.HeldLink {
        WorldSnapshot.HeldLink(
            id: links[index].id, generation: links[index].generation, openedAt: links[index].openedAt,
            writerStalled: links[index].stalledSends > 0, lastStallEndedAt: links[index].lastStallEndedAt)
    }
}
