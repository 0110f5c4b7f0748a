public import LiveConnection

/// Turns one 64-bit seed into a ``Scenario``: configuration, swarm, schedule, latencies,
/// executor strategy.
///
/// ```swift
/// let generator = ScenarioGenerator(duration: .seconds(3600), strategy: .random)
/// let scenario = generator.scenario(seed: 7)   // the same scenario for seed 7, always
/// ```
///
/// SplitMix64 splits the seed into independent sub-seeds (configuration, swarm, schedule,
/// strategy, manager), so changing how one part is generated does not shift the others.
/// Every fault kind that is on arrives as a Poisson process at its swarm rate; faults that
/// are states (a freeze, a refusal, the background) get a matching "off" action after a
/// hold time, so every run also has healthy stretches in which liveness can be checked.
public struct ScenarioGenerator: Sendable {
    /// The length of every generated run.
    public var duration: Duration
    /// The executor strategy; nil lets the seed choose.
    public var strategy: StrategyChoice.Kind?
    /// Fix the fault mix instead of drawing a swarm (nil: swarm).
    public var faults: FaultMix?
    /// Fix the manager's configuration instead of drawing one of ``configurations`` (nil: draw).
    public var configuration: ConnectionConfiguration?

    public init(
        duration: Duration = .seconds(3600), strategy: StrategyChoice.Kind? = nil, faults: FaultMix? = nil,
        configuration: ConnectionConfiguration? = nil
    ) {
        self.duration = duration
        self.strategy = strategy
        self.faults = faults
        self.configuration = configuration
    }

    /// The configurations a seed picks from: production, a mobile-ish profile, seed 000's
    /// test values, decorrelated jitter, and the fixed table.
    public static let configurations: [ConnectionConfiguration] = {
        func make(_ p: Duration, _ t: Duration, _ connect: Duration, _ backoff: BackoffPolicy) -> ConnectionConfiguration {
            var configuration = ConnectionConfiguration()
            configuration.heartbeatInterval = p
            configuration.heartbeatTimeout = t
            configuration.connectTimeout = connect
            configuration.backoff = backoff
            return configuration
        }
        return [
            make(.seconds(25), .seconds(10), .seconds(10), .fullJitter()),
            make(.seconds(10), .seconds(5), .seconds(5), .equalJitter(base: .milliseconds(500), cap: .seconds(10))),
            make(.milliseconds(500), .milliseconds(500), .seconds(2), .fullJitter(base: .milliseconds(100), cap: .seconds(2))),
            make(.seconds(25), .seconds(10), .seconds(10), .decorrelatedJitter()),
            make(.seconds(15), .seconds(5), .seconds(10), .table()),
        ]
    }()

    /// The scenario of `seed`.
    public func scenario(seed: UInt64) -> Scenario {
        var split = SplitMix64(seed: seed)
        var configurationRandom = Xoshiro256StarStar(seed: split.nextWord())
        var swarmRandom = Xoshiro256StarStar(seed: split.nextWord())
        var scheduleRandom = Xoshiro256StarStar(seed: split.nextWord())
        let strategySeed = split.nextWord()
        let managerSeed = split.nextWord()

        var configuration = Self.configurations[
            Int(configurationRandom.uniform(below: UInt64(Self.configurations.count)))]
        configuration.resume = configurationRandom.chance(0.9)
        if let fixed = self.configuration { configuration = fixed }
        // Half the seeds keep a short log, so resume sometimes truly cannot fill a hole.
        let logCapacity = configurationRandom.chance(0.5)
            ? 10_000 : Int(configurationRandom.uniform(in: 3...40))

        let mix = faults ?? FaultMix.swarm(using: &swarmRandom)
        let kind = strategy ?? StrategyChoice.Kind.allCases[Int(configurationRandom.uniform(below: 3))]
        let choice = StrategyChoice.generated(kind, seed: strategySeed)
        let schedule = ScheduleBuilder(configuration: configuration, duration: duration, feedTopic: "feed")
            .schedule(for: mix, using: &scheduleRandom)
        return Scenario(
            seed: seed, configuration: configuration, strategy: choice, duration: duration, faults: mix,
            schedule: schedule, managerSeed: managerSeed, logCapacity: logCapacity)
    }
}
