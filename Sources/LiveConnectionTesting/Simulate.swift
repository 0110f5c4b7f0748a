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
/// The run's trace (its seed, strategy, configuration, the actions the body
/// ``SimulationWorld/record(_:)``-ed and the events it ``SimulationWorld/log(_:)``-ged) is
/// registered with the `.simulation` trait, which attaches it and prints the replay line
/// if the test fails. Without the trait, a body that throws gets the same report here.
///
/// - Parameters:
///   - seed: everything random derives from it: the executor's choices and ``SimulationWorld/makeRandom()``.
///   - strategy: the executor's strategy; by default, random with a seed derived from `seed`.
///   - timeLimit: virtual time after which the body is cancelled.
///   - configuration: the configuration recorded in the trace and offered to managers.
///   - name: the generator name written in the trace (defaults to the test's name).
/// - Returns: the body's value.
/// - Throws: the body's error, or ``SimulationError/deadlocked(at:pendingSleepers:)``.
@discardableResult
public func simulate<Value: Sendable>(
    seed: UInt64,
    strategy: StrategyChoice? = nil,
    timeLimit: Duration = .seconds(3600),
    configuration: ConnectionConfiguration = ConnectionConfiguration(),
    name: String? = nil,
    _ body: @escaping @Sendable (SimulationWorld) async throws -> Value
) throws -> Value {
    let strategy = strategy ?? .random(seed: SimulationWorld.schedulerSeed(for: seed))
    let clock = VirtualClock()
    let world = SimulationWorld(seed: seed, clock: clock, configuration: configuration)
    let result = strategy.withStrategy { strategy in
        Simulation.run(strategy: strategy, clock: clock, until: timeLimit) { try await body(world) }
    }
    let testName = Test.current.map(ReplayCommand.filter(for:))
    let trace = world.trace(strategy: strategy, timeLimit: timeLimit, name: name ?? testName ?? "simulate")
    if let recorder = SimulationRecorder.current {
        recorder.register(seed: seed, trace: trace)
        return try result.get()
    }
    do {
        return try result.get()
    } catch {
        SimulationFailureReport(seed: seed, trace: trace).record()
        throw error
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
    public var trace: Trace

    public init(seed: UInt64, trace: Trace) {
        self.seed = seed
        self.trace = trace
    }

    /// The replay command for the running test.
    public var replayCommand: ReplayCommand { ReplayCommand(seed: seed) }

    /// The attachment's file name: `seed<N>.trace`.
    public var attachmentName: String { "seed\(seed).trace" }

    /// One line for the test log.
    public var summary: String { "simulation seed \(seed) failed; replay: \(replayCommand)" }

    /// Attaches the trace to the running test and prints ``summary`` on standard error.
    public func record() {
        if Test.current != nil {
            Attachment.record(trace.encode(), named: attachmentName)
        }
        FileHandle.standardError.write(Data((summary + "\n").utf8))
    }
}
