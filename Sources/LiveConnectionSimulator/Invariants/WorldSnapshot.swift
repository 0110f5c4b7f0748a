public import LiveConnection
public import SimulationKernel

/// The world as the invariant monitor reads it at one step, taken at once: the answers to
/// one ``WorldQuestions``, so a step costs the world one lock, not one per question, and the
/// open connection is not copied into a full ``LinkTruth`` at every step only for its death.
///
/// ```swift
/// var snapshot = WorldSnapshot(questions: questions)
/// network.answer(questions, into: &snapshot)      // at every step, into the same value
/// for link in snapshot.newLinks { print(link.id, link.endpoint.url) }
/// if let watched = snapshot.watched { print(watched.generation, watched.deadSince as Any) }
/// ```
///
/// The answers are those of ``WorldTruth``'s own questions asked at the same instant: what a
/// rule needs beyond them (a full ``LinkTruth`` when a connection opens or closes, a few times
/// per connection) it asks the world directly.
public struct WorldSnapshot: Sendable {
    /// A connection the client holds, with what `single-live-transport` reads of it.
    public struct HeldLink: Hashable, Sendable {
        /// The connection's number (from 1, in order of attempts).
        public var id: Int
        /// The manager generation that opened it.
        public var generation: Generation?
        /// When the handshake completed.
        public var openedAt: VirtualClock.Instant?
        /// A delayed send is holding its writer.
        public var writerStalled: Bool
        /// When the last delayed send on it completed.
        public var lastStallEndedAt: VirtualClock.Instant?

        /// The parts of a held connection `single-live-transport` reads.
        public init(
            id: Int, generation: Generation?, openedAt: VirtualClock.Instant?, writerStalled: Bool,
            lastStallEndedAt: VirtualClock.Instant?
        ) {
            self.id = id
            self.generation = generation
            self.openedAt = openedAt
            self.writerStalled = writerStalled
            self.lastStallEndedAt = lastStallEndedAt
        }

        /// The parts of `truth` the held-socket rule reads.
        public init(_ truth: LinkTruth) {
            self.init(
                id: truth.id, generation: truth.generation, openedAt: truth.openedAt,
                writerStalled: truth.writerStalled, lastStallEndedAt: truth.lastStallEndedAt)
        }
    }

    /// The watched generation (``WorldQuestions/watching``) and what the dead-peer rule reads
    /// of its latest connection.
    public struct Watched: Hashable, Sendable {
        /// The generation asked about.
        public var generation: Generation
        /// It has a connection at all (`WorldTruth.link(for:)` is not nil).
        public var hasLink: Bool
        /// ``LinkTruth/deadSince`` of that connection.
        public var deadSince: VirtualClock.Instant?

        /// What the dead-peer rule reads of `generation`'s latest connection.
        public init(generation: Generation, hasLink: Bool, deadSince: VirtualClock.Instant?) {
            self.generation = generation
            self.hasLink = hasLink
            self.deadSince = deadSince
        }
    }

    /// The questions these are the answers to.
    public var questions: WorldQuestions
    /// ``WorldTruth/links(from:)`` from ``WorldQuestions/linksFrom``.
    public var newLinks: [LinkTruth] = []
    /// ``WorldTruth/heldLinks()``, reduced to what is read; empty unless ``WorldQuestions/timeChecks``.
    public var held: [HeldLink] = []
    /// The watched generation's connection; nil unless ``WorldQuestions/timeChecks`` and a
    /// generation is watched.
    public var watched: Watched?
    /// ``WorldTruth/commandCount``; read only with ``WorldQuestions/timeChecks``.
    public var commandCount = 0
    /// ``WorldTruth/commands(from:)`` from ``WorldQuestions/commandsFrom``, when there are more
    /// commands than that (else empty).
    public var newCommands: [(connection: Int, text: String)] = []
    /// ``WorldTruth/replayableFrom``.
    public var replayableFrom: UInt64?
    /// ``WorldTruth/welcomesConnections(heartbeatInterval:)`` at ``WorldQuestions/heartbeatInterval``;
    /// read only with ``WorldQuestions/timeChecks``.
    public var welcomesConnections: Bool?
    /// ``WorldTruth/lastSendDelayedAt``.
    public var lastSendDelayedAt: VirtualClock.Instant?

    /// Nothing read yet: the answers a world gives before anything happened.
    public init(questions: WorldQuestions) {
        self.questions = questions
    }

    /// Nothing read yet for `questions`; the arrays keep their storage, so a monitor that
    /// refills one snapshot at every step allocates nothing for it.
    public mutating func clear(for questions: WorldQuestions) {
        self.questions = questions
        if !newLinks.isEmpty { newLinks.removeAll(keepingCapacity: true) }
        if !held.isEmpty { held.removeAll(keepingCapacity: true) }
        watched = nil
        commandCount = 0
        if !newCommands.isEmpty { newCommands.removeAll(keepingCapacity: true) }
        replayableFrom = nil
        welcomesConnections = nil
        lastSendDelayedAt = nil
    }
}

extension WorldTruth {
    /// The default: ``answeredOneAtATime(_:)``.
    public func answer(_ questions: WorldQuestions, into snapshot: inout WorldSnapshot) {
        snapshot = answeredOneAtATime(questions)
    }

    /// The answers to `questions` in a snapshot of their own.
    public func snapshot(_ questions: WorldQuestions) -> WorldSnapshot {
        var snapshot = WorldSnapshot(questions: questions)
        answer(questions, into: &snapshot)
        return snapshot
    }

    /// The snapshot from the world's own questions, asked one at a time in the order the
    /// monitor asked them before it took snapshots: what every world's ``WorldTruth/answer(_:into:)``
    /// must equal when nothing changes in between (the tests hold ``SimulatedNetwork``'s to it).
    public func answeredOneAtATime(_ questions: WorldQuestions) -> WorldSnapshot {
        var snapshot = WorldSnapshot(questions: questions)
        snapshot.newLinks = links(from: questions.linksFrom)
        snapshot.replayableFrom = replayableFrom
        snapshot.lastSendDelayedAt = lastSendDelayedAt
        guard questions.timeChecks else { return snapshot }
        snapshot.held = heldLinks().map(WorldSnapshot.HeldLink.init)
        if let g = questions.watching {
            let link = link(for: g)
            snapshot.watched = .init(generation: g, hasLink: link != nil, deadSince: link?.deadSince)
        }
        snapshot.welcomesConnections = welcomesConnections(heartbeatInterval: questions.heartbeatInterval)
        snapshot.commandCount = commandCount
        if snapshot.commandCount > questions.commandsFrom {
            snapshot.newCommands = commands(from: questions.commandsFrom)
        }
        return snapshot
    }
}
