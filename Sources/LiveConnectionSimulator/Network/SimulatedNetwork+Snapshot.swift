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
    public func answer(_ questions: WorldQuestions, into snapshot: inout WorldSnapshot) {
        let now = clock.now
        snapshot.clear(for: questions)
        state.withLock { state in
            let hasNewLinks = questions.linksFrom < state.links.count
            if questions.timeChecks || hasNewLinks { state.settleAll(now: now) }
            if hasNewLinks {
                for index in questions.linksFrom..<state.links.count {
                    snapshot.newLinks.append(state.truth(of: state.links[index]))
                }
            }
            snapshot.replayableFrom = state.server.oldestRetained
            snapshot.lastSendDelayedAt = state.lastSendDelayedAt
            guard questions.timeChecks else { return }
            for index in state.held { snapshot.held.append(state.heldLink(at: index)) }
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
