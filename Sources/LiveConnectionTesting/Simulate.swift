import Foundation
public import LiveConnection
public import LiveConnectionSimulator
import Testing

/// Runs `body` as a deterministic simulation: on a seeded executor, in virtual time,
/// synchronously on the calling thread.
///
/// ```swift
/// @Test(.simulation, arguments: try Seeds.range(0..<50))
/// func retriesAfterReset(seed: UInt64) throws {
///     try simulate(seed: seed) { world in
///         try await world.clock.sleep(for: .seconds(1))
///         world.log("slept")
///     }
/// }
/// ```
///
/// The run's trace (its seed, strategy, configuration, the actions the body performed and
/// the events it ``SimulationWorld/log(_:)``-ged, the test's name and how long it ran) is
/// registered with the `.simulation` trait, which shrinks it, attaches it and gives the
/// replay line if the test fails. Without the trait, a body that throws gets a report here
/// (unshrunk).
///
/// When `LIVESIM_TRACE` names a trace of this test and seed (``PinnedTrace``), the run
/// follows it: its strategy, and only the ``SimulationWorld/perform(_:on:)`` calls it kept;
/// the timeline is printed, and an issue is recorded if the run performs other actions
/// than the trace records.
///
/// - Parameters:
///   - seed: everything random derives from it: the executor's choices and ``SimulationWorld/makeRandom()``.
///   - strategy: the executor's strategy; by default, random with a seed derived from `seed`.
///   - timeLimit: virtual time after which the body is cancelled.
///   - configuration: the configuration recorded in the trace and offered to managers.
///   - name: the generator name written in the trace (defaults to the test's name).
///   - body: the simulated session; it runs on the simulator's executor and may only wait
///     on `world.clock` and on work it started itself (child tasks).
/// - Returns: the body's value.
/// - Throws: the body's error, `deadlocked(at:pendingSleepers:)`, or ``SeedsError`` for a
///   `LIVESIM_TRACE` that is not a test's readable trace.
@discardableResult
public func simulate<Value: Sendable>(
    seed: UInt64,
    strategy: StrategyChoice? = nil,
    timeLimit: Duration = .seconds(3600),
    configuration: ConnectionConfiguration = ConnectionConfiguration(),
    name: String? = nil,
    _ body: @escaping @Sendable (SimulationWorld) async throws -> Value
) throws -> Value {
    var strategy = strategy ?? .random(seed: SimulationWorld.schedulerSeed(for: seed))
    let testName = Test.current.map(ReplayCommand.filter(for:))
    let recorder = SimulationRecorder.current
    // Which perform calls run: a shrinking candidate's, a pinned (shrunk) trace's, or all.
    var kept: Set<Int>?
    let replaying = try PinnedTrace.replaying(test: testName, seed: seed)
    if let candidate = ShrinkCandidate.current, candidate.simulation == recorder?.entries.count ?? 0 {
        kept = candidate.keptPerforms
    } else if let replaying {
        strategy = replaying.trace.scenario.strategy
        kept = replaying.trace.keptPerforms.map(Set.init)
    }
    let clock = VirtualClock()
    let world = SimulationWorld(seed: seed, clock: clock, configuration: configuration, keptPerforms: kept)
    let result = strategy.withStrategy { strategy in
        Simulation.run(strategy: strategy, clock: clock, until: timeLimit) {
            try await SimulationWorld.$current.withValue(world) { try await body(world) }
        }
    }
    let trace = world.trace(strategy: strategy, name: name ?? testName ?? "simulate", test: testName)
    if let replaying { reportReplay(of: replaying, as: trace) }
    if let recorder {
        recorder.register(seed: seed, trace: trace, performed: world.performedNumbers)
        return try result.get()
    }
    do {
        return try result.get()
    } catch {
        SimulationFailureReport(seed: seed, trace: trace).record()
        throw error
    }
}

/// Prints the timeline of a run replayed from `LIVESIM_TRACE`, and records an issue if
/// the run performed other actions than the trace records: the test's code changed since
/// the trace was written, so this run is not the one the trace shows.
private func reportReplay(of pinned: PinnedTrace, as run: Trace) {
    SimulationFailureReport.printLine(
        "simulation seed \(run.scenario.seed) replayed from \(pinned.path), timeline:\n"
            + run.observed.map { $0.traceLine + "\n" }.joined(),
        terminated: false)
    if let divergence = pinned.divergence(from: run) {
        Issue.record(
            Comment(
                rawValue:
                    "\(PinnedTrace.environmentVariable): this run is not the one in \(pinned.path): \(divergence) "
                    + "(the test's code changed since the trace was written)"))
    }
}

/// What a failed simulation leaves behind: the trace as an attachment and the replay line.
///
/// ```swift
/// SimulationFailureReport(seed: 37, trace: trace).record()
/// // prints: simulation seed 37 failed; replay: LIVESIM_SEED=37 swift test --filter 'ChatTests/…'
/// ```
public struct SimulationFailureReport: Sendable {
    public var seed: UInt64
    /// The run to show: the shrunk one when the failure was shrunk.
    public var trace: Trace
    /// The run as it failed first, when ``trace`` is its shrunk form.
    public var original: Trace?

    /// - Parameters:
    ///   - seed: the failing seed.
    ///   - trace: its run (shrunk, if it was).
    ///   - original: the unshrunk run, if `trace` is shrunk.
    public init(seed: UInt64, trace: Trace, original: Trace? = nil) {
        self.seed = seed
        self.trace = trace
        self.original = original
    }

    /// The replay command for the running test.
    public var replayCommand: ReplayCommand { ReplayCommand(seed: seed) }

    /// The attachment's file name: `seed<N>.trace`.
    public var attachmentName: String { "seed\(seed).trace" }

    /// The unshrunk run's attachment name: `seed<N>-unshrunk.trace`.
    public var originalAttachmentName: String { "seed\(seed)-unshrunk.trace" }

    /// One line for the test log.
    public var summary: String { "simulation seed \(seed) failed; replay: \(replayCommand)" }

    /// The comment on each failed expectation of the case: the seed and where its trace went.
    public var issueComment: String { "simulation seed \(seed) failed; trace attached as \(attachmentName)" }

    /// The timeline picture's attachment name: `seed<N>.svg`.
    public var pictureName: String { "seed\(seed).svg" }

    /// The run's timeline as an SVG picture: a lane per manager with its phases over
    /// virtual time, the actions, deliveries and log lines as marks.
    public var picture: String {
        TimelinePicture(timeline: trace.observed, title: "\(trace.generator.name), seed \(seed)").svg()
    }

    /// The run's timeline (actions, the managers' phases and deliveries, the test's log
    /// lines, by virtual time), as the trace's observed section writes it.
    public var timeline: String { trace.observed.map { $0.traceLine + "\n" }.joined() }

    /// Attaches the trace (and the unshrunk one) and its picture to the running test and, if `printing`, prints ``summary`` on
    /// standard error (the `.simulation` trait prints one summary per test instead). When
    /// this seed is the one `LIVESIM_SEED` pins (the replay line is running), the timeline
    /// is printed too: that run is the one being debugged.
    public func record(printing: Bool = true) {
        if Test.current != nil {
            Attachment.record(trace.encode(), named: attachmentName)
            Attachment.record(picture, named: pictureName)
            if let original { Attachment.record(original.encode(), named: originalAttachmentName) }
        }
        if printing { Self.printLine(summary) }
        if (try? Seeds.pinned(in: ProcessInfo.processInfo.environment)) == seed {
            Self.printLine("simulation seed \(seed) timeline:\n" + timeline, terminated: false)
        }
    }

    /// Writes a line to standard error (where Swift Testing's own failure output goes).
    static func printLine(_ text: String, terminated: Bool = true) {
        FileHandle.standardError.write(Data((terminated ? text + "\n" : text).utf8))
    }
}
