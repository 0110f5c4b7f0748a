public import LiveConnection
import LiveConnectionSimulator

/// The delays a `ConnectionManager` itself waits between connection
/// attempts, recorded in simulation: the sample to hold against its policy's claim.
///
/// ```swift
/// var configuration = ConnectionConfiguration()
/// configuration.backoff = .decorrelatedJitter(base: .seconds(1), cap: .seconds(30))
/// let observations = try ManagerDelays.record(configuration: configuration, runs: 200, attempts: 8, seed: 1)
/// let report = try BackoffFit.fit(observations, to: configuration.backoff)
/// #expect(report.accepted, "\(report.table())")
/// ```
///
/// Each run is one manager in its own deterministic simulation, connecting to a server
/// that refuses every connection, so every attempt fails at once and the manager backs
/// off `attempts` times in a row. A delay is what a user of the manager sees: the virtual
/// time from the `waiting` phase (the failure) to the next `connecting` phase (the retry),
/// not the delay the machine says it drew, so a manager that states one delay and waits
/// another is measured by what it waits. Runs get independent random sources derived
/// from `seed`, so a seed reproduces the whole sample, byte for byte.
public enum ManagerDelays {
    /// The most runs one call records (each is a small simulation).
    public static let maximumRuns = 1_000_000
    /// The most consecutive failures recorded per run.
    public static let maximumAttempts = 1_000

    /// Records `runs` × `attempts` backoff delays of the manager.
    ///
    /// - Parameters:
    ///   - configuration: the manager's configuration; its `backoff` is the policy under test.
    ///   - runs: independent managers (clients), 1…``maximumRuns``.
    ///   - attempts: consecutive refused attempts per run, 1…``maximumAttempts``; the
    ///     observations of a run have attempts 1…`attempts`.
    ///   - seed: derives each run's random source (through SplitMix64).
    ///   - logic: the decision maker, if not `ConnectionMachine(configuration:)` (your own
    ///     `ConnectionLogic`, or a deliberately broken one).
    /// - Throws: ``ManagerDelaysError`` for an out-of-range count, or when a run ended
    ///   before its manager retried `attempts` times (it stopped, or stalled).
    public static func record(
        configuration: ConnectionConfiguration = ConnectionConfiguration(), runs: Int, attempts: Int, seed: UInt64,
        logic: (@Sendable (ConnectionConfiguration) -> any ConnectionLogic)? = nil
    ) throws(ManagerDelaysError) -> [DelayObservation] {
        guard (1...maximumRuns).contains(runs) else { throw .outOfRange(name: "runs", value: runs, limit: maximumRuns) }
        guard (1...maximumAttempts).contains(attempts) else {
            throw .outOfRange(name: "attempts", value: attempts, limit: maximumAttempts)
        }
        var seeds = SplitMix64(seed: seed)
        var observations: [DelayObservation] = []
        observations.reserveCapacity(runs * attempts)
        for run in 0..<runs {
            let delays = try recordRun(
                run, configuration: configuration, attempts: attempts, seed: seeds.nextWord(), logic: logic)
            var previous: Duration?
            for (index, delay) in delays.enumerated() {
                observations.append(DelayObservation(run: run, attempt: index + 1, delay: delay, previous: previous))
                previous = delay
            }
        }
        return observations
    }

    /// One manager's first `attempts` delays against a server that refuses everything.
    private static func recordRun(
        _ run: Int, configuration: ConnectionConfiguration, attempts: Int, seed: UInt64,
        logic: (@Sendable (ConnectionConfiguration) -> any ConnectionLogic)?
    ) throws(ManagerDelaysError) -> [Duration] {
        let clock = VirtualClock()
        let network = SimulatedNetwork(clock: clock)
        _ = network.apply(.refuseConnections(true))
        let manager = ConnectionManager(
            configuration: configuration, transport: network, clock: clock, random: Xoshiro256StarStar(seed: seed),
            logic: logic?(configuration))
        let result = Simulation.run(strategy: .fifo, clock: clock) {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await manager.run() }
                let events = await manager.events()
                await manager.connect(to: Scenario.endpoint(0))
                var delays: [Duration] = []
                var failedAt: VirtualClock.Instant?
                // Events arrive at the virtual instant they happen: time only moves when
                // nothing can run, and this loop can run as soon as an event is yielded.
                loop: for await event in events {
                    switch event {
                    case .phase(.waiting): failedAt = clock.now
                    case .phase(.connecting):
                        guard let failed = failedAt else { continue }
                        delays.append(failed.duration(to: clock.now))
                        failedAt = nil
                        if delays.count == attempts { break loop }
                    case .phase(.stopped): break loop
                    default: continue
                    }
                }
                group.cancelAll()
                return delays
            }
        }
        let delays: [Duration]
        switch result.outcome {
        case .finished(let value): delays = (try? value.get()) ?? []
        case .deadlocked: throw .runEnded(run: run, recorded: 0, wanted: attempts, why: "the manager stalled")
        case .exceededJobLimit: throw .runEnded(run: run, recorded: 0, wanted: attempts, why: "the job limit ran out")
        }
        guard delays.count == attempts else {
            throw .runEnded(run: run, recorded: delays.count, wanted: attempts, why: "the manager stopped retrying")
        }
        return delays
    }
}

/// Why ``ManagerDelays/record(configuration:runs:attempts:seed:logic:)`` recorded nothing.
public enum ManagerDelaysError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A count outside 1…limit.
    case outOfRange(name: String, value: Int, limit: Int)
    /// A run ended before the manager retried as often as asked.
    case runEnded(run: Int, recorded: Int, wanted: Int, why: String)

    public var description: String {
        switch self {
        case .outOfRange(let name, let value, let limit): "\(name) must be in 1…\(limit), not \(value)"
        case .runEnded(let run, let recorded, let wanted, let why):
            "run \(run) recorded \(recorded) of \(wanted) delays: \(why)"
        }
    }
}
