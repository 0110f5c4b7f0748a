public import LiveConnection
public import LiveConnectionTraces
public import SimulationKernel

/// Turns one 64-bit seed into a `Scenario`: configuration, swarm, schedule, latencies,
/// executor strategy.
///
/// ```swift
/// let generator = ScenarioGenerator(duration: .seconds(3600), strategy: .random)
/// let scenario = generator.scenario(seed: 7)   // the same scenario for seed 7, always
/// ```
///
/// SplitMix64 splits the seed into independent sub-seeds (configuration, swarm, schedule,
/// strategy, manager, stale-callback lingers, the app's options, the app's close frames, the
/// backoff policy), so
/// changing how one part is generated does not shift the others.
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
        func make(_ p: Duration, _ t: Duration, _ connect: Duration, _ backoff: BackoffPolicy)
            -> ConnectionConfiguration
        {
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
            make(
                .milliseconds(500), .milliseconds(500), .seconds(2),
                .fullJitter(base: .milliseconds(100), cap: .seconds(2))),
            make(.seconds(25), .seconds(10), .seconds(10), .decorrelatedJitter()),
            make(.seconds(15), .seconds(5), .seconds(10), .table()),
        ]
    }()

    /// How long a stale callback's connection lingers in its closing handshake before the
    /// callback arrives: at once, within a round trip, or after the manager had time to
    /// back off and open a new connection (backoff caps are 2 to 30 s).
    static let lingers: [Duration] = [
        .zero, .milliseconds(50), .milliseconds(500), .seconds(2), .seconds(8), .seconds(20),
    ]

    /// A stale callback's linger, drawn from its own sub-seed: every other draw of a seed
    /// (and every schedule that wire-swarm 2 derives from it) stays what it was.
    static func drawingLinger(for scheduled: ScheduledAction, using random: inout some RandomSource)
        -> ScheduledAction
    {
        guard case .deliverStale(let callback, _) = scheduled.action, callback != .open else { return scheduled }
        let linger = lingers[Int(random.uniform(below: UInt64(lingers.count)))]
        return ScheduledAction(at: scheduled.at, .deliverStale(callback, after: linger))
    }

    /// The close frames an app disconnects with: the usual ones, the application's range, and
    /// reasons from none to a multi-byte one.
    static let appCloses: [(code: CloseCode, reason: String)] = [
        (.normal, ""), (.goingAway, "app closed"), (CloseCode(4000), "signed out"), (CloseCode(4321), "bye ✓"),
        (CloseCode(3000), "logged out on another device"),
    ]

    /// Half the app's disconnects become `disconnect(code:reason:)` with a close frame drawn
    /// from ``appCloses``, from their own sub-seed (every other draw stays what it was).
    static func drawingClose(for scheduled: ScheduledAction, using random: inout some RandomSource)
        -> ScheduledAction
    {
        guard scheduled.action == .disconnect, random.chance(0.5) else { return scheduled }
        let close = appCloses[Int(random.uniform(below: UInt64(appCloses.count)))]
        return ScheduledAction(at: scheduled.at, .disconnectWith(code: close.code, reason: close.reason))
    }

    /// The app's opt-in options, from their own sub-seed (every other draw of a seed stays
    /// what it was): a quarter of the seeds give up after 1 to 6 attempts, a quarter fetch
    /// credentials before every connect, so the invariants judge both against every fault.
    static func drawOptions(into configuration: inout ConnectionConfiguration, using random: inout some RandomSource) {
        let limit = random.chance(0.25) ? Int(random.uniform(in: 1...6)) : nil
        // In range by construction: 1…6 or nil.
        try? configuration.limitAttempts(to: limit)
        if random.chance(0.25) { configuration.credentialsTiming = .beforeEveryConnect }
    }

    /// The scenario of `seed`.
    public func scenario(seed: UInt64) -> Scenario {
        var split = SplitMix64(seed: seed)
        var configurationRandom = Xoshiro256StarStar(seed: split.nextWord())
        var swarmRandom = Xoshiro256StarStar(seed: split.nextWord())
        var scheduleRandom = Xoshiro256StarStar(seed: split.nextWord())
        let strategySeed = split.nextWord()
        let managerSeed = split.nextWord()
        var lingerRandom = Xoshiro256StarStar(seed: split.nextWord())
        var optionsRandom = Xoshiro256StarStar(seed: split.nextWord())
        var closingRandom = Xoshiro256StarStar(seed: split.nextWord())
        var policyRandom = Xoshiro256StarStar(seed: split.nextWord())

        var configuration = Self.configurations[
            Int(configurationRandom.uniform(below: UInt64(Self.configurations.count)))]
        configuration.resume = configurationRandom.chance(0.9)
        Self.drawOptions(into: &configuration, using: &optionsRandom)
        // Half the seeds keep their profile's policy; the other half draw any shipped family
        // with drawn parameters (its own sub-seed: every other draw stays what it was).
        if policyRandom.chance(0.5) { configuration.backoff = PolicyDraw.policy(using: &policyRandom) }
        if let fixed = self.configuration { configuration = fixed }
        // Half the seeds keep a short log, so resume sometimes truly cannot fill a hole.
        let logCapacity =
            configurationRandom.chance(0.5)
            ? 10_000 : Int(configurationRandom.uniform(in: 3...40))

        let mix = faults ?? FaultMix.swarm(using: &swarmRandom)
        let kind = strategy ?? StrategyChoice.Kind.allCases[Int(configurationRandom.uniform(below: 3))]
        let choice = StrategyChoice.generated(kind, seed: strategySeed)
        let schedule = ScheduleBuilder(configuration: configuration, duration: duration, feedTopic: "feed")
            .schedule(for: mix, using: &scheduleRandom)
            .map { Self.drawingLinger(for: $0, using: &lingerRandom) }
            .map { Self.drawingClose(for: $0, using: &closingRandom) }
        return Scenario(
            seed: seed, configuration: configuration, strategy: choice, duration: duration, faults: mix,
            schedule: schedule, managerSeed: managerSeed, logCapacity: logCapacity)
    }
}
