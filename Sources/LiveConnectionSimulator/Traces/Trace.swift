public import LiveConnection

/// A simulation run written down: the seed, how its schedule was made, the configuration,
/// and the external actions at their virtual times, so anyone can run it again.
///
/// ```swift
/// var trace = Trace(seed: 42, generator: GeneratorID(name: "swarm", version: 1),
///                   strategy: .random(seed: 42), configuration: configuration,
///                   duration: .seconds(60))
/// trace.schedule = [ScheduledAction(at: .zero, .connect(endpoint: 0)),
///                   ScheduledAction(at: .seconds(3), .resetConnection)]
/// let text = trace.encode()                 // "livesim-trace 1\nseed: 42\n…\n3000ms reset\n"
/// let again = try Trace(parsing: text)      // == trace
/// ```
///
/// A trace records the *inputs* of a run (the fault schedule and the app's intents), not
/// the manager's reactions: after the manager's code changes the same inputs still mean
/// the same thing, and the reactions are re-derived. The optional ``observed`` section
/// keeps the reactions of one run for `livesim diff`; replay ignores it. The format is in
/// `docs/trace-format.md`.
public struct Trace: Hashable, Sendable {
    /// The version this build writes and the only one it reads.
    public static let formatVersion = 1

    /// The seed everything random in the run derives from.
    public var seed: UInt64
    /// Which scenario generator (and which version of it) made the schedule from the seed.
    public var generator: GeneratorID
    /// How the executor picked among ready jobs.
    public var strategy: TraceStrategy
    /// The manager's configuration, every field.
    public var configuration: ConnectionConfiguration
    /// How much virtual time the run lasts.
    public var duration: Duration
    /// The seed of the manager's own random source (its backoff draws).
    public var managerSeed: UInt64
    /// Words the manager's random source answers first, before it continues from
    /// ``managerSeed``: a model checker's chosen backoff draws (empty: none).
    public var managerWords: [UInt64]
    /// How many broadcasts the simulated server keeps for resume.
    public var logCapacity: Int
    /// The topic the scenario's broadcasts go to.
    public var feedTopic: String
    /// The deliberately broken manager variant the run used, if any.
    public var variant: String?
    /// What replaying this trace must show (committed traces in `Traces/` all say).
    public var expectation: Expectation?
    /// The external actions, ordered by time; actions at the same time keep their order.
    public var schedule: [ScheduledAction] {
        didSet { Self.sortStably(&schedule) }
    }
    /// What one run of this trace did, for diffing and for replaying in another build.
    ///
    /// Setting it stamps ``observedBuild`` with this build: the events are what this
    /// build's executor did.
    public var observed: [ObservedEvent] {
        didSet { observedBuild = observed.isEmpty ? nil : .current }
    }
    /// The build whose run ``observed`` shows (nil with no observed section, or in a trace
    /// written before builds were recorded).
    public var observedBuild: BuildMode?

    public init(
        seed: UInt64, generator: GeneratorID, strategy: TraceStrategy, configuration: ConnectionConfiguration,
        duration: Duration, managerSeed: UInt64? = nil, managerWords: [UInt64] = [], logCapacity: Int = 1_000,
        feedTopic: String = "feed",
        variant: String? = nil, expectation: Expectation? = nil,
        schedule: [ScheduledAction] = [], observed: [ObservedEvent] = []
    ) {
        self.seed = seed
        self.generator = generator
        self.strategy = strategy
        self.configuration = configuration
        self.duration = duration
        self.managerSeed = managerSeed ?? seed
        self.managerWords = managerWords
        self.logCapacity = logCapacity
        self.feedTopic = feedTopic
        self.variant = variant
        self.expectation = expectation
        var sorted = schedule
        Self.sortStably(&sorted)
        self.schedule = sorted
        self.observed = observed
        self.observedBuild = observed.isEmpty ? nil : .current
    }

    /// Orders by time and keeps the given order among equal times (`sort` is not stable).
    static func sortStably(_ schedule: inout [ScheduledAction]) {
        guard zip(schedule, schedule.dropFirst()).contains(where: { $0.at > $1.at }) else { return }
        schedule = schedule.enumerated()
            .sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }
            .map(\.element)
    }
}

/// Names the scenario generator and its version: a seed only reproduces a schedule
/// with the generator that made it.
///
/// ```swift
/// GeneratorID(name: "swarm", version: 1).description   // "swarm 1"
/// ```
public struct GeneratorID: Hashable, Sendable, CustomStringConvertible {
    public var name: String
    public var version: Int

    public init(name: String, version: Int) {
        self.name = name
        self.version = version
    }

    /// Schedules written by hand or by the shrinker rather than generated from a seed.
    public static let handWritten = GeneratorID(name: "hand-written", version: 1)

    public var description: String { "\(TraceToken.word(name)) \(version)" }
}

/// The scheduling strategy of a run, with everything needed to rebuild it.
///
/// ```swift
/// TraceStrategy.pct(seed: 9, depth: 3, expectedSteps: 10_000).description
/// // "pct seed=9 depth=3 steps=10000"
/// ```
public enum TraceStrategy: Hashable, Sendable, CustomStringConvertible {
    case fifo
    case random(seed: UInt64)
    case pct(seed: UInt64, depth: Int, expectedSteps: Int)

    public var description: String {
        switch self {
        case .fifo: "fifo"
        case .random(let seed): "random seed=\(seed)"
        case .pct(let seed, let depth, let steps): "pct seed=\(seed) depth=\(depth) steps=\(steps)"
        }
    }

    /// Runs `body` with this strategy: the one place the trace's spelling meets the kernel.
    public func withStrategy<Result>(_ body: (any SchedulingStrategy) throws -> Result) rethrows -> Result {
        switch self {
        case .fifo: try body(FIFOScheduling())
        case .random(let seed): try body(RandomScheduling(seed: seed))
        case .pct(let seed, let depth, let steps):
            try body(PCTScheduling(seed: seed, depth: depth, expectedSteps: steps))
        }
    }
}

/// What a committed trace says replaying it must show.
///
/// ```swift
/// Expectation.violation("at-most-one-live-transport").description
/// // "violation at-most-one-live-transport"
/// ```
///
/// A trace of a broken variant expects the violation it was recorded for: if it stops
/// failing, the simulator lost the ability to catch that bug. A trace of a bug that was
/// fixed expects `pass`: if it fails again, the bug is back.
public enum Expectation: Hashable, Sendable, CustomStringConvertible {
    /// Every invariant holds for the whole run.
    case pass
    /// The named invariant is violated (others may be too).
    case violation(String)

    public var description: String {
        switch self {
        case .pass: "pass"
        case .violation(let invariant): "violation \(TraceToken.word(invariant))"
        }
    }
}

/// One line of what a run did: a phase, an input, an effect, a violation, at its virtual time.
///
/// ```swift
/// ObservedEvent(at: .milliseconds(1500), "phase open").traceLine   // "1500ms phase open"
/// ```
public struct ObservedEvent: Hashable, Sendable {
    public var at: Duration
    /// Free text for people and for diff, on one line: line breaks and control
    /// characters are replaced by spaces and trailing spaces dropped when the event is
    /// made, so every event is written and read back unchanged (and no editor that trims
    /// trailing whitespace can change a committed trace).
    public let text: String

    public init(at: Duration, _ text: String) {
        self.at = at
        var single = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            single.append(TraceToken.needsEscape(scalar) ? " " : scalar)
        }
        while single.last == " " { single.removeLast() }
        self.text = String(single)
    }

    public var traceLine: String { at.traceFormatted + " " + text }
}
