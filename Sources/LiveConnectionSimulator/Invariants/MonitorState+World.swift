import LiveConnection
import SimulationKernel

// The world as the rules read it: one snapshot per step (``WorldSnapshot``), taken when the
// step starts, instead of one question to the world, and one lock, per rule. Nothing else
// runs in the simulated world during a step, so the answers are the ones each rule got when
// it asked for itself; the rules asking more than the snapshot holds (a full `LinkTruth` when
// a connection opens or closes) still ask the world.
extension MonitorState {
    /// This step's questions: the connections and commands not read yet, the open (else the
    /// live) generation's connection for the dead-peer rule, and the time checks' facts unless
    /// the run has ended (then ``checkTime(now:)`` judges nothing).
    var questions: WorldQuestions {
        WorldQuestions(
            linksFrom: linksChecked, commandsFrom: commandsChecked, watching: openGeneration ?? live,
            timeChecks: !runEnded, heartbeatInterval: configuration.heartbeatInterval)
    }

    /// A step starts: the world answers this step's questions at once. Every rule reads the
    /// world through the accessors below, after this.
    mutating func lookAtWorld() {
        let questions = self.questions
        world.answer(questions, into: &snapshot)
    }

    /// The connections not checked yet (``WorldTruth/links(from:)`` from ``linksChecked``).
    var uncheckedLinks: ArraySlice<LinkTruth> {
        snapshot.newLinks.dropFirst(linksChecked - snapshot.questions.linksFrom)
    }

    /// ``WorldTruth/replayableFrom``.
    var replayableFrom: UInt64? { snapshot.replayableFrom }

    /// ``WorldTruth/heldLinks()``, as far as `single-live-transport` reads them.
    var heldLinks: [WorldSnapshot.HeldLink] {
        snapshot.questions.timeChecks ? snapshot.held : world.heldLinks().map(WorldSnapshot.HeldLink.init)
    }

    /// `deadSince` of generation `g`'s latest connection (``WorldTruth/link(for:)``), nil when
    /// it has none or it is healthy.
    func deadSince(ofLinkFor g: Generation) -> VirtualClock.Instant? {
        if let watched = snapshot.watched, watched.generation == g { return watched.deadSince }
        return world.link(for: g)?.deadSince
    }

    /// Whether generation `g` has a connection at all (``WorldTruth/link(for:)`` is not nil).
    func hasLink(for g: Generation) -> Bool {
        if let watched = snapshot.watched, watched.generation == g { return watched.hasLink }
        return world.link(for: g) != nil
    }

    /// ``WorldTruth/welcomesConnections(heartbeatInterval:)`` at P.
    var welcomesConnections: Bool? {
        guard snapshot.questions.timeChecks else {
            return world.welcomesConnections(heartbeatInterval: configuration.heartbeatInterval)
        }
        return snapshot.welcomesConnections
    }

    /// ``WorldTruth/lastSendDelayedAt``.
    var lastSendDelayedAt: VirtualClock.Instant? { snapshot.lastSendDelayedAt }

    /// ``WorldTruth/commandCount`` and the commands from ``commandsChecked`` on (empty unless
    /// there are more than that).
    var uncheckedCommands: (count: Int, commands: [(connection: Int, text: String)]) {
        guard snapshot.questions.timeChecks, snapshot.questions.commandsFrom == commandsChecked else {
            let count = world.commandCount
            return (count, count > commandsChecked ? world.commands(from: commandsChecked) : [])
        }
        return (snapshot.commandCount, snapshot.newCommands)
    }
}
