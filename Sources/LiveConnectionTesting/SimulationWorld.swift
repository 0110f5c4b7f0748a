public import LiveConnection
public import LiveConnectionSimulator

public import typealias LiveConnection.Mutex

/// What a test body sees inside ``simulate(seed:strategy:timeLimit:configuration:name:_:)``:
/// the virtual clock, seeded randomness, and the record that becomes the run's trace.
///
/// ```swift
/// try simulate(seed: seed) { world in
///     try await world.clock.sleep(for: .seconds(3))
///     world.record(.resetConnection)          // into the trace's schedule, at 3000ms
///     world.log("model shows 4 messages")     // into the trace's timeline (observed section)
/// }
/// ```
///
/// The trace's observed section is the run's timeline: every recorded action, every
/// phase, delivery and gap of the managers made by ``makeManager(configuration:logic:observer:)``,
/// and every ``log(_:)`` line, each at its virtual time, in the order they happened.
///
/// Everything random a test needs should come from ``makeRandom()``: each call gives the
/// next independent stream derived from the seed, so the same seed gives the same run.
public final class SimulationWorld: Sendable {
    /// The seed of this run.
    public let seed: UInt64
    /// The only clock the simulated code may use.
    public let clock: VirtualClock
    /// The configuration a manager in this world should use (it is written into the trace).
    public let configuration: ConnectionConfiguration
    /// The simulated network and its WebSocket server, on ``clock``.
    public let network: SimulatedNetwork

    private struct Record {
        var streams: SplitMix64
        var schedule: [ScheduledAction] = []
        /// For each schedule entry, the number of the ``perform(_:on:)`` call that made it
        /// (nil: ``record(_:)``-ed by the test, which shrinking cannot take away).
        var performNumbers: [Int?] = []
        var observed: [ObservedEvent] = []
        /// Managers made by ``makeManager(configuration:logic:observer:)`` so far (they are m1, m2, …).
        var managers = 0
        /// ``perform(_:on:)`` calls so far, whether they ran or were skipped.
        var performs = 0
    }

    private let record: Mutex<Record>
    /// Which ``perform(_:on:)`` calls run, by number: nil, all of them; otherwise only
    /// these (a shrinking candidate, or the replay of a shrunk trace).
    let keptPerforms: Set<Int>?

    init(seed: UInt64, clock: VirtualClock, configuration: ConnectionConfiguration, keptPerforms: Set<Int>? = nil) {
        self.seed = seed
        self.clock = clock
        self.configuration = configuration
        self.keptPerforms = keptPerforms
        self.network = SimulatedNetwork(clock: clock)
        // The first word of the seed's SplitMix64 stream goes to the scheduler; streams start after it.
        var streams = SplitMix64(seed: seed)
        _ = streams.nextWord()
        record = Mutex(Record(streams: streams))
    }

    /// The strategy seed a world with this seed uses when none is given: SplitMix64's first word.
    static func schedulerSeed(for seed: UInt64) -> UInt64 {
        var streams = SplitMix64(seed: seed)
        return streams.nextWord()
    }

    /// A new random stream, independent of the others, determined by the seed and by how
    /// many streams were made before it.
    public func makeRandom() -> Xoshiro256StarStar {
        record.withLock { Xoshiro256StarStar(seed: $0.streams.nextWord()) }
    }

    /// Virtual time since the start of the run.
    public var now: Duration { clock.now.sinceStart }

    /// Notes an external action the test performed now: it goes into the trace's schedule,
    /// and into its timeline as `action …`. Shrinking cannot take it away (the test did it
    /// anyway): prefer ``perform(_:on:)``, or ``admit(_:)`` for an action the test does itself.
    public func record(_ action: SimulationAction) {
        note(action, performNumber: nil)
    }

    /// Puts `action` into the schedule and the timeline, now.
    private func note(_ action: SimulationAction, performNumber: Int?) {
        let at = now
        record.withLock {
            $0.schedule.append(ScheduledAction(at: at, action))
            $0.performNumbers.append(performNumber)
            $0.observed.append(ObservedEvent(at: at, "action \(action.traceWords)"))
        }
    }

    /// For an action the test does itself rather than through ``perform(_:on:)`` (a
    /// broadcast whose sequence number it needs, say): numbers it as a perform call,
    /// records it if it is kept, and says whether to do it. Shrinking can then take it
    /// away like any performed action; ``record(_:)`` notes one it cannot.
    ///
    /// ```swift
    /// if world.admit(.broadcast(topic: "room", text: text)) {
    ///     let sequence = world.network.broadcast(topic: "room", text: text)
    ///     sent.append(Line(sequence: sequence, text: text))
    /// }
    /// ```
    ///
    /// - Returns: whether to do the action: false only while shrinking, or replaying a
    ///   shrunk trace, skips it.
    public func admit(_ action: SimulationAction) -> Bool {
        let number = record.withLock { record in
            defer { record.performs += 1 }
            return record.performs
        }
        guard keptPerforms?.contains(number) ?? true else { return false }
        note(action, performNumber: number)
        return true
    }

    /// Notes what happened now: it goes into the trace's timeline as `log …`, between the
    /// actions and the managers' phases and deliveries of the same moment.
    public func log(_ text: String) {
        note("log " + text)
    }

    /// One line of the timeline, now.
    func note(_ line: String) {
        let at = now
        record.withLock { $0.observed.append(ObservedEvent(at: at, line)) }
    }

    /// The name the next manager goes by in the timeline (`m1`, `m2`, …).
    func nextManagerName() -> String {
        record.withLock {
            $0.managers += 1
            return "m\($0.managers)"
        }
    }

    /// The trace's timeline so far: actions, managers' phases and deliveries, and the
    /// test's log lines, in the order they happened.
    public var timeline: [ObservedEvent] { record.withLock { $0.observed } }

    /// The numbers of the ``perform(_:on:)`` calls that ran, in order: what shrinking takes from.
    var performedNumbers: [Int] { record.withLock { $0.performNumbers.compactMap { $0 } } }

    /// The run so far as a trace: its duration is the virtual time it ran (not the time
    /// limit), and `test` names the test that produced it, the only code that can replay it.
    func trace(strategy: StrategyChoice, name: String, test: String?) -> Trace {
        // A trace's duration must be positive; a run that ended at once ran for "no time".
        let ran = max(now, .nanoseconds(1))
        return record.withLock { record in
            Trace(
                scenario: Scenario(
                    seed: seed, configuration: configuration, strategy: strategy, duration: ran,
                    schedule: record.schedule, managerSeed: seed),
                generator: GeneratorID(name: name, version: 1), test: test,
                keptPerforms: keptPerforms == nil ? nil : record.performNumbers.compactMap { $0 },
                observed: record.observed)
        }
    }
}
