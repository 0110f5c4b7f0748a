import Foundation
public import LiveConnection

/// How long the connection machine takes to notice a peer that silently died.
///
/// ```swift
/// var configuration = ConnectionConfiguration()
/// configuration.heartbeatInterval = .milliseconds(500)   // P
/// configuration.heartbeatTimeout = .milliseconds(500)    // T
/// let experiment = DetectionDelayExperiment(configuration: configuration)
/// let delays = experiment.delays(count: 2000, seed: 1)  // each ≤ P + T
/// experiment.statedDistribution                          // U(T − L/2, P + T − L/2)
/// ```
///
/// The pure `ConnectionMachine` runs in virtual time under a minimal shell: the
/// handshake and flush complete at once, every ping is answered after the round trip L
/// while the peer lives, and timers fire from an ``EventQueue``. The peer dies at a
/// uniformly random moment within `cycles` heartbeat intervals of the open, so its death
/// falls uniformly within a ping cycle. The first ping it cannot answer is the first one
/// sent after x − L/2; the machine gives up T after that ping, so the delay D from death
/// to "heartbeat missed" is uniform on [T − L/2, P + T − L/2): D ≤ P + T always and
/// E[D] = P/2 + T − L/2 (seed 000's formula, P/2 + T, when L → 0).
public struct DetectionDelayExperiment: Sendable {
    /// The machine configuration: P and T come from here.
    public var configuration: ConnectionConfiguration
    /// The ping–pong round trip L.
    public var roundTrip: Duration
    /// The death happens uniformly within this many heartbeat intervals after the open.
    public var cycles: Int

    /// An experiment; `delays(count:seed:)` performs it.
    public init(configuration: ConnectionConfiguration, roundTrip: Duration = .milliseconds(20), cycles: Int = 10) {
        precondition(cycles > 0 && roundTrip >= .zero, "cycles must be positive and the round trip not negative")
        precondition(
            roundTrip < configuration.heartbeatInterval, "the round trip must be shorter than the heartbeat interval")
        self.configuration = configuration
        self.roundTrip = roundTrip
        self.cycles = cycles
    }

    /// The claim the delays are checked against: U(T − L/2, P + T − L/2).
    public var statedDistribution: DelayDistribution {
        let half = Duration.nanoseconds(roundTrip.nanoseconds / 2)
        let t = configuration.heartbeatTimeout
        return .uniform((t - half)...(configuration.heartbeatInterval + t - half))
    }

    /// `count` independent detection delays (one machine and one death per run).
    public func delays(count: Int, seed: UInt64) -> [Duration] {
        var seeds = SplitMix64(seed: seed)
        return (0..<count).map { _ in run(seed: seeds.nextWord()) }
    }

    private enum Event {
        case input(Input)
        case timer(TimerID, token: UInt64)
    }

    /// One run: connect, open, let the peer die, return the time from death to detection.
    public func run(seed: UInt64) -> Duration {
        var random = Xoshiro256StarStar(seed: seed)
        var machine = ConnectionMachine(configuration: configuration)
        var queue = EventQueue<Event>()
        var armed: [TimerID: UInt64] = [:]
        var nextToken: UInt64 = 0
        var openedAt: Int64?
        var death = Int64.max
        let halfTrip = roundTrip.nanoseconds / 2
        let endpoint = Endpoint(url: URL(string: "wss://peer.example/socket")!)

        func perform(_ effects: [Effect], at now: Int64) -> Int64? {
            for effect in effects {
                switch effect {
                case .openConnection(let g, _):
                    queue.schedule(.input(.opened(g)), at: now)
                case .flush(let g):
                    queue.schedule(.input(.flushed(g)), at: now)
                case .report(.open):
                    // The peer's death is drawn once the connection is open.
                    openedAt = now
                    let window = configuration.heartbeatInterval.nanoseconds * Int64(cycles)
                    death = now + random.uniform(in: 0...window)
                case .ping(let g):
                    // The peer answers if it is still alive when the ping reaches it.
                    if now + halfTrip < death { queue.schedule(.input(.pong(g)), at: now + roundTrip.nanoseconds) }
                case .startTimer(let timer, let delay):
                    nextToken += 1
                    armed[timer] = nextToken
                    queue.schedule(.timer(timer, token: nextToken), at: now + delay.nanoseconds)
                case .cancelTimer(let timer):
                    armed[timer] = nil
                case .closeConnection(_, _, let reason):
                    if reason == "heartbeat missed" { return now }
                    preconditionFailure("the detection experiment closed for \(reason), not a missed heartbeat")
                default:
                    continue
                }
            }
            return nil
        }

        _ = perform(machine.handle(.connect(endpoint), using: &random), at: 0)
        while let (now, event) = queue.next() {
            let effects: [Effect]
            switch event {
            case .input(let input):
                effects = machine.handle(input, using: &random)
            case .timer(let timer, let token):
                // A cancelled or re-armed timer's old firing is dropped, as a real shell does.
                guard armed[timer] == token else { continue }
                armed[timer] = nil
                effects = machine.handle(.timerFired(timer), using: &random)
            }
            if let detected = perform(effects, at: now) {
                precondition(openedAt != nil, "detected a death before the connection opened")
                return .nanoseconds(detected - death)
            }
        }
        preconditionFailure("the machine never noticed the dead peer (state \(machine.state))")
    }
}
