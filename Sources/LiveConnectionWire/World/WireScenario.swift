import LiveConnection
import LiveConnectionSimulator
public import LiveConnectionTraces

/// One run of the wire world: the swarm scenario of a seed (its schedule of server
/// faults and app intents), and how many clients share the server.
///
/// ```swift
/// let scenario = WireScenarioGenerator().scenario(seed: 42)
/// scenario.clients             // 1, or a herd of 20 on one seed in eight
/// scenario.base.schedule       // the faults and intents, in time order
/// ```
public struct WireScenario: Hashable, Sendable {
    /// The seed, strategy, duration, schedule and server log capacity (the manager
    /// configuration in it only shaped the schedule; clients bring their own).
    public var base: Scenario
    /// How many clients run against the one server (each gets every intent).
    public var clients: Int

    public init(base: Scenario, clients: Int) {
        precondition(clients >= 1, "a wire scenario needs a client")
        self.base = base
        self.clients = clients
    }

    /// Whether the wire world can apply this action to any client: intents it maps to
    /// ``AppIntent``, and server and network actions. Commands and subscription churn are
    /// not part of it, nor late errors and late opens (the wire world's seeds predate the
    /// network's delivering them, and keep their schedules).
    public static func applies(_ action: SimulationAction) -> Bool {
        switch action {
        case .send, .subscribe, .unsubscribe: false
        case .deliverStale(let callback, _): callback != .error && callback != .open
        default: true
        }
    }

    /// The action as the wire world applies it: a late callback arrives when its socket is
    /// closed, without a lingering closing handshake (wire-swarm 2 seeds keep the runs they
    /// had before the simulator drew lingers).
    static func wireForm(of action: SimulationAction) -> SimulationAction {
        guard case .deliverStale(let callback, _) = action else { return action }
        return .deliverStale(callback)
    }
}

/// Derives a ``WireScenario`` from a seed: the simulator's swarm generator (so a seed's
/// faults are the ones `livesim explore` knows), a herd on one seed in eight, and a long
/// outage on one seed in four.
///
/// ```swift
/// let generator = WireScenarioGenerator(duration: .seconds(3600))
/// generator.scenario(seed: 7) == generator.scenario(seed: 7)   // always
/// ```
public struct WireScenarioGenerator: Sendable {
    public var duration: Duration
    /// A herd's run is shorter: twenty clients cost twenty times as much.
    public var herdDuration: Duration
    public var herdSize: Int
    /// One seed in this many runs a herd.
    public var herdEvery: UInt64

    /// The `generator:` line of wire traces.
    public static let traceIdentity = GeneratorID(name: "wire-swarm", version: 2)

    public init(
        duration: Duration = .seconds(3600), herdDuration: Duration = .seconds(600), herdSize: Int = 20,
        herdEvery: UInt64 = 8
    ) {
        precondition(herdSize >= 2 && herdEvery >= 1, "a herd needs two clients and a frequency")
        self.duration = duration
        self.herdDuration = min(duration, herdDuration)
        self.herdSize = herdSize
        self.herdEvery = herdEvery
    }

    public func scenario(seed: UInt64) -> WireScenario {
        var split = SplitMix64(seed: seed ^ 0x57_49_52_45)  // "WIRE": independent of the swarm's own split
        let herd = split.nextWord() % herdEvery == 0
        let generator = ScenarioGenerator(
            duration: herd ? herdDuration : duration, configuration: ConnectionConfiguration())
        var base = generator.scenario(seed: seed)
        base.schedule = base.schedule.filter { WireScenario.applies($0.action) }.map {
            ScheduledAction(at: $0.at, WireScenario.wireForm(of: $0.action))
        }
        // One seed in four also has a long outage (the swarm's refusals last a minute at
        // most): the server restarts and refuses connections for 5–10 minutes, which a
        // client must sit out and survive.
        if split.nextWord() % 4 == 0 {
            // Early in the run, so that the twenty minutes after the first violation see it heal.
            let start = Duration.milliseconds(Int64(split.nextWord() % 180_000))
            let length = Duration.seconds(300 + Int64(split.nextWord() % 301))
            base.schedule += [
                ScheduledAction(at: start, .refuseConnections(true)),
                ScheduledAction(at: start, .restartServer),
                ScheduledAction(at: start + length, .refuseConnections(false)),
            ]
            base.schedule = base.schedule.enumerated()
                .filter { $0.element.at < base.duration }
                .sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }.map(\.element)
        }
        return WireScenario(base: base, clients: herd ? herdSize : 1)
    }
}
