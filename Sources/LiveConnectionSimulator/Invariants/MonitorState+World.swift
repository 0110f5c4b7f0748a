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

    /// A step starts: the world answers this step's questions at once.
    mutating func lookAtWorld() {
        snapshot = world.snapshot(questions)
    }

    /// The step is over: the next one looks again.
    mutating func forgetWorld() {
        snapshot = nil
    }

    /// This step's snapshot (outside a step, a fresh one).
    private var seen: WorldSnapshot { snapshot ?? world.snapshot(questions) }

    /// The connections not checked yet (``WorldTruth/links(from:)`` from ``linksChecked``).
    var uncheckedLinks: ArraySlice<LinkTruth> {
        let seen = self.seen
        return seen.newLinks.dropFirst(linksChecked - seen.questions.linksFrom)
    }

    /// ``WorldTruth/replayableFrom``.
    var replayableFrom: UInt64? { seen.replayableFrom }

    /// ``WorldTruth/heldLinks()``, as far as `single-live-transport` reads them.
    var heldLinks: [WorldSnapshot.HeldLink] {
        let seen = self.seen
        return seen.questions.timeChecks ? seen.held : world.heldLinks().map(WorldSnapshot.HeldLink.init)
    }

    /// `deadSince` of generation `g`'s latest connection (``WorldTruth/link(for:)``), nil when
    /// it has none or it is healthy.
    func deadSince(ofLinkFor g: Generation) -> VirtualClock.Instant? {
        if let watched = seen.watched, watched.generation == g { return watched.deadSince }
        return world.link(for: g)?.deadSince
    }

    /// Whether generation `g` has a connection at all (``WorldTruth/link(for:)`` is not nil).
    func hasLink(for g: Generation) -> Bool {
        if let watched = seen.watched, watched.generation == g { return watched.hasLink }
        return world.link(for: g) != nil
    }

    /// ``WorldTruth/welcomesConnections(heartbeatInterval:)`` at P.
    var welcomesConnections: Bool? {
        let seen = self.seen
        guard seen.questions.timeChecks else {
            return world.welcomesConnections(heartbeatInterval: configuration.heartbeatInterval)
        }
        return seen.welcomesConnections
    }

    /// ``WorldTruth/lastSendDelayedAt``.
    var lastSendDelayedAt: VirtualClock.Instant? { seen.lastSendDelayedAt }

    /// ``WorldTruth/commandCount`` and the commands from ``commandsChecked`` on (empty unless
    /// there are more than that).
    var uncheckedCommands: (count: Int, commands: [(connection: Int, text: String)]) {
        let seen = self.seen
        guard seen.questions.timeChecks, seen.questions.commandsFrom == commandsChecked else {
            let count = world.commandCount
            return (count, count > commandsChecked ? world.commands(from: commandsChecked) : [])
        }
        return (seen.commandCount, seen.newCommands)
    }
}
