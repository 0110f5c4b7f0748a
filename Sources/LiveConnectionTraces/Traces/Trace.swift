import LiveConnection

/// A simulation run written down: a ``Scenario`` plus its provenance (which generator made
/// it, which variant ran, what replaying it must show, what one run did), so anyone can
/// run it again.
///
/// ```swift
/// var scenario = Scenario(seed: 42, configuration: configuration, strategy: .random(seed: 42),
///                         duration: .seconds(60), schedule: [], managerSeed: 42)
/// scenario.schedule = [ScheduledAction(at: .zero, .connect(endpoint: 0)),
///                      ScheduledAction(at: .seconds(3), .resetConnection)]
/// let trace = Trace(scenario: scenario, generator: GeneratorID(name: "swarm", version: 1))
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

    /// What runs: seed, strategy, configuration, duration, the manager's random source,
    /// the server's log, and the external actions ordered by time (actions at the same
    /// time keep their order). A trace does not keep the swarm's ``Scenario/faults``
    /// description (only the schedule runs), so it is always empty here.
    public var scenario: Scenario {
        didSet { Self.sortStably(&scenario.schedule) }
    }
    /// Which scenario generator (and which version of it) made the schedule from the seed.
    public var generator: GeneratorID
    /// The deliberately broken manager variant the run used, if any.
    public var variant: String?
    /// The client kind a wire run judged (`livesim explore --client NAME`), if not the manager's own invariants.
    public var client: String?
    /// How many clients shared the server in a wire run (a herd when more than one).
    public var clients: Int
    /// What the client of a wire run claimed (its backoff, dead-peer bound, connect
    /// timeout, …), in words: the judge held it to these, not to the configuration lines,
    /// which only the manager's own client reads.
    public var claims: String?
    /// The user's test that produced the run (`Suite/function`), if one did: only that
    /// test's code can run it again (`LIVESIM_TRACE=FILE swift test --filter NAME`).
    public var test: String?
    /// In a test's shrunk trace, which of the test's `perform` calls ran (0-based, in call
    /// order); the others were skipped. Nil: all of them ran.
    public var keptPerforms: [Int]?
    /// What replaying this trace must show (committed traces in `Traces/` all say).
    public var expectation: Expectation?
    /// What one run of this trace did, for diffing and for replaying in another build.
    ///
    /// What produced the run, and so what can run it again: the manager (livesim replays
    /// it), a named client (livesim replays it if the client is compiled into it), or a
    /// user's test (only that test can).
    public var producer: TraceProducer {
        if let test { return .test(test) }
        if let client { return .client(client) }
        return .manager
    }

    /// Setting it stamps ``observedBuild`` with this build: the events are what this
    /// build's executor did.
    public var observed: [ObservedEvent] {
        didSet { observedBuild = observed.isEmpty ? nil : .current }
    }
    /// The build whose run ``observed`` shows (nil with no observed section, or in a trace
    /// written before builds were recorded).
    public var observedBuild: BuildMode?

    /// The trace of a scenario: everything a `SimulationRun` needs to run it again.
    ///
    /// The scenario's ``FaultMix`` describes how the schedule was drawn; only the schedule
    /// runs, so the trace keeps the schedule and not the mix.
    public init(
        scenario: Scenario, generator: GeneratorID, variant: String? = nil, client: String? = nil, clients: Int = 1,
        expectation: Expectation? = nil, claims: String? = nil, test: String? = nil, keptPerforms: [Int]? = nil,
        observed: [ObservedEvent] = []
    ) {
        var scenario = scenario
        scenario.faults = FaultMix(rates: [])
        Self.sortStably(&scenario.schedule)
        self.scenario = scenario
        self.client = client
        self.clients = clients
        self.generator = generator
        self.variant = variant
        self.expectation = expectation
        self.claims = claims
        self.test = test
        self.keptPerforms = keptPerforms
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

/// What made a trace, and so what can replay it.
///
/// ```swift
/// switch trace.producer {
/// case .manager: try trace.replay()                    // livesim replay FILE
/// case .client(let name): print("livesim replay FILE, with the client \(name) compiled in")
/// case .test(let name): print("LIVESIM_TRACE=FILE swift test --filter '\(name)'")
/// }
/// ```
public enum TraceProducer: Hashable, Sendable {
    /// The package's own manager, under the simulator's scenario (no `client:` or `test:` line).
    case manager
    /// A client kind judged from the wire (the `client:` line).
    case client(String)
    /// A user's test (the `test:` line): its own code performed the schedule.
    case test(String)
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

/// What a committed trace says replaying it must show.
///
/// ```swift
/// Expectation.violation(Rule.singleLiveTransport.name).description
/// // "violation single-live-transport"
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
