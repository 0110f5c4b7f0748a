import Foundation
public import LiveConnection
public import SimulationKernel

/// Everything one simulated run needs: all of it derived from ``seed`` by the generator,
/// or read back from a trace.
///
/// ```swift
/// let scenario = ScenarioGenerator().scenario(seed: 42)
/// let result = SimulationRun(scenario).run()
/// print(result.violations.isEmpty ? "ok" : "\(result.violations[0])")
/// ```
///
/// A scenario holds the external inputs only (the ``schedule`` of server actions, faults
/// and app intents), never the manager's reactions, so a recorded scenario replays
/// against a changed manager and the reactions can be compared.
public struct Scenario: Hashable, Sendable {
    /// The seed everything below was derived from (kept for the replay line).
    public var seed: UInt64
    /// The manager's configuration (heartbeat, timeouts, backoff, resume).
    public var configuration: ConnectionConfiguration
    /// The order in which the executor runs ready jobs.
    public var strategy: StrategyChoice
    /// How long the run lasts in virtual time.
    public var duration: Duration
    /// The swarm: which fault kinds were on, and at what rates (informational once the
    /// schedule is generated: the schedule is what runs).
    public var faults: FaultMix
    /// The external actions, in time order.
    public var schedule: [ScheduledAction]
    /// The seed of the manager's random source (its backoff draws).
    public var managerSeed: UInt64
    /// Words the manager's random source answers before it continues from
    /// ``managerSeed`` (a model checker's chosen draws; usually empty).
    public var managerWords: [UInt64]
    /// How many broadcasts the server's log keeps for resume.
    public var logCapacity: Int
    /// The topic every broadcast goes to; the app subscribes to it first.
    public var feedTopic: String

    public init(
        seed: UInt64, configuration: ConnectionConfiguration, strategy: StrategyChoice, duration: Duration,
        faults: FaultMix = FaultMix(rates: []), schedule: [ScheduledAction], managerSeed: UInt64,
        managerWords: [UInt64] = [],
        logCapacity: Int = 1_000, feedTopic: String = "feed"
    ) {
        self.managerWords = managerWords
        self.seed = seed
        self.configuration = configuration
        self.strategy = strategy
        self.duration = duration
        self.faults = faults
        self.schedule = schedule
        self.managerSeed = managerSeed
        self.logCapacity = logCapacity
        self.feedTopic = feedTopic
    }

    /// The URL of simulated endpoint `index` (`connect(endpoint:)` intents name them by index).
    public static func endpoint(_ index: Int) -> Endpoint {
        Endpoint(url: URL(string: "ws://server-\(index).sim/live")!)
    }
}
