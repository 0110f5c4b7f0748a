import Foundation
public import LiveConnection
public import LiveConnectionRules
import LiveConnectionSimulator
public import LiveConnectionTraces
import SimulationKernel

/// Runs one ``WireScenario`` with clients of one ``ClientKind`` against the simulated
/// server, and judges them from the wire.
///
/// ```swift
/// let scenario = WireScenarioGenerator().scenario(seed: 3)
/// let result = WireRun(scenario, kind: ManagerClient.kind()).run()
/// for violation in result.violations { print(violation) }
/// ```
///
/// Synchronous and self-contained, like ``SimulationRun``: its own clock, executor,
/// network and clients; the same scenario gives the same verdict on the same build. The
/// driver applies the schedule (server actions to the network, intents to every client;
/// a network-path change to both, as a device and its app's path monitor would);
/// a prober wakes on every wire event and asks each client's probe. A run goes on for twenty
/// minutes after its first violation (each rule is reported once per client), so one flaw
/// does not hide the next, and then stops; or sooner, after
/// ``jobsAfterViolation(clients:)`` more executor jobs.
public struct WireRun: Sendable {
    public var scenario: WireScenario
    public var kind: ClientKind
    /// Keep the wire log as text (traces) or only the verdict (exploration).
    public var recordsLog: Bool

    public init(_ scenario: WireScenario, kind: ClientKind, recordsLog: Bool = true) {
        self.scenario = scenario
        self.kind = kind
        self.recordsLog = recordsLog
    }

    /// A client whose loops multiply (timers never invalidated) is stopped after this many
    /// executor jobs; its run is judged on what happened until then. Each further client of
    /// a herd adds a third of that: the prober asks every client after every wire event, so
    /// a herd of correct clients costs more than their sum (20 managers × 10 min took up to
    /// 170,000 jobs, and 150,000 for the whole herd stopped them short).
    public static func jobLimit(clients: Int) -> Int { 150_000 + 50_000 * (clients - 1) }

    /// Once a client broke a rule, its run may take this many more executor jobs (about
    /// what a correct client's whole one-hour run takes: 26,000 for one manager), then it
    /// stops. A failing client's loops often multiply, each job costing more than the
    /// last, so the twenty minutes after a first violation once cost a hundred passing
    /// runs; this keeps a failing seed within a few passing ones.
    public static func jobsAfterViolation(clients: Int) -> Int { jobLimit(clients: clients) / 6 }

    /// The URL client `client` uses for simulated endpoint `index`.
    public static func endpoint(_ index: Int, client: Int) -> Endpoint {
        Endpoint(url: URL(string: "ws://server-\(index).sim/live?client=\(client)")!)
    }

    public func run() -> WireRunResult {
        scenario.base.strategy.withStrategy { run(strategy: $0) }
    }

    private func run(strategy: some SchedulingStrategy) -> WireRunResult {
        let base = scenario.base
        let count = scenario.clients
        let kind = self.kind
        let clock = VirtualClock()
        let network = SimulatedNetwork(clock: clock, logCapacity: base.logCapacity, recordsWire: true)
        let topics = [base.feedTopic]
        let judge = WireJudge(claims: kind.claims, clients: count, topics: topics, network: network, clock: clock)
        var firstViolationJobs: Int?
        let outcome = Simulation.run(
            strategy: strategy, clock: clock, until: base.duration + .seconds(60),
            jobLimit: Self.jobLimit(clients: count),
            revisedJobLimit: { jobs in
                guard firstViolationJobs == nil, judge.hasViolation else { return nil }
                firstViolationJobs = jobs
                return min(Self.jobLimit(clients: count), jobs + Self.jobsAfterViolation(clients: count))
            },
            // What the clients do while the stopped run is unwound is not the world they are judged in.
            onJobLimit: { judge.endRun() }
        ) {
            var split = SplitMix64(seed: base.managerSeed)
            let clients = (0..<count).map { _ in
                kind.make(WireClientContext(transport: network, clock: clock, seed: split.nextWord(), topics: topics))
            }
            await withDiscardingTaskGroup { group in
                for client in clients { group.addTask { await client.run() } }
                group.addTask { await Self.probe(clients, judge: judge, network: network) }
                await Self.drive(base, clients: clients, judge: judge, network: network, clock: clock)
                judge.endRun()
                group.cancelAll()
            }
        }
        judge.finish()
        let log = recordsLog ? network.wireEvents(from: 0).map(\.description) : []
        return WireRunResult(
            seed: base.seed, client: kind.name, clients: count, violations: judge.violations, wire: log,
            checks: judge.checks, pathChanges: judge.pathChanges, simulatedTime: outcome.finalTime.sinceStart,
            jobsRun: outcome.jobsRun,
            deadlocked: !outcome.bodyFinished && !judge.hasViolation,
            unfinished: Self.unfinished(outcome, afterViolation: firstViolationJobs))
    }

    /// Applies the schedule at its virtual times.
    private static func drive(
        _ base: Scenario, clients: [any WireClient], judge: WireJudge, network: SimulatedNetwork, clock: VirtualClock
    ) async {
        let start = clock.now
        for scheduled in base.schedule where scheduled.at < base.duration {
            do { try await clock.sleep(until: start + scheduled.at) } catch { return }
            // The world as it was until now: a silence (a frozen socket, a lost path) that
            // outlived a claimed bound with nothing on the wire is judged before it ends.
            judge.check()
            if scheduled.action.disruptsTheWorld { judge.disruption() }
            if network.apply(scheduled.action) {
                // A server or network action: done.
            } else if case .deliverStale(let callback, let linger) = scheduled.action {
                // The held socket delivers a callback late once its client closed it.
                network.armLateCallback(callback, after: linger)
            } else if case .path(let viable) = scheduled.action {
                // The network first (the judge reads the change there, as a wire event), then
                // each client's app tells it, through its public API, in the same instant.
                network.setPathAvailable(viable)
                for client in clients { await client.perform(.setPathViable(viable)) }
            } else if let intent = intent(for: scheduled.action) {
                judge.intent(intent(0))
                for (index, client) in clients.enumerated() { await client.perform(intent(index)) }
            }
            judge.check()
            // A victim's later flaws may take time to show, but a run-away one must not cost
            // an hour of growing loops: a run ends twenty minutes after its first violation.
            if let first = judge.firstViolationAt, clock.now - start > first + .seconds(1200) { return }
        }
        do { try await clock.sleep(until: start + base.duration) } catch { return }
        judge.check()
    }

    /// Why the run stopped before its body finished, in a user's words (nil: it finished).
    static func unfinished(_ outcome: SimulationResult<Void>, afterViolation: Int?) -> String? {
        switch outcome.outcome {
        case .finished: nil
        case .deadlocked:
            "deadlocked at \(outcome.finalTime.sinceStart.traceFormatted) with \(outcome.pendingSleepers) sleepers parked: "
                + SimulationError.likelyCause
        case .exceededJobLimit:
            if let afterViolation {
                "stopped at \(outcome.finalTime.sinceStart.traceFormatted), \(outcome.jobsRun - afterViolation) executor jobs "
                    + "after its first violation (the run has its verdict)"
            } else {
                "stopped after \(outcome.jobsRun) executor jobs (the limit) at \(outcome.finalTime.sinceStart.traceFormatted): "
                    + "the clients' loops multiply, or the limit is too small for this many clients"
            }
        }
    }

    /// The app intent an action stands for (per client: each client has its own URL).
    static func intent(for action: SimulationAction) -> ((Int) -> AppIntent)? {
        switch action {
        case .connect(let index): { .connect(Self.endpoint(index, client: $0)) }
        case .setForeground(let foreground): { _ in .setForeground(foreground) }
        // A client judged from the wire has one way to stop; the manager's own code is its
        // own business (the simulator's invariants judge it).
        case .disconnect, .disconnectWith: { _ in .disconnect }
        default: nil
        }
    }

    /// Wakes on every wire event and asks each client whether it thinks it is connected.
    private static func probe(_ clients: [any WireClient], judge: WireJudge, network: SimulatedNetwork) async {
        var seen = 0
        while !Task.isCancelled {
            await network.waitForWireEvent(after: seen)
            seen = network.wireEventCount
            judge.check()
            for (index, client) in clients.enumerated() {
                let question = judge.ask(client: index)
                if let connected = await client.isConnected() { judge.answer(question, connected: connected) }
            }
        }
    }
}

/// What one ``WireRun`` found.
public struct WireRunResult: Sendable {
    public var seed: UInt64
    public var client: String
    public var clients: Int
    /// The first violation of each rule per client, in the order found.
    public var violations: [Violation]
    /// What the server saw, one line per event (empty when the run kept no log).
    public var wire: [String]
    public var checks: Int
    /// How many times the network path went or came back.
    public var pathChanges: Int
    public var simulatedTime: Duration
    public var jobsRun: Int
    /// The simulation ended with nothing runnable before the run was over, or ran out of
    /// jobs, with no violation found (a run that already failed may be cut short).
    public var deadlocked: Bool
    /// Why the simulation stopped before the run was over (nil: it finished).
    public var unfinished: String?

    public var passed: Bool { violations.isEmpty && !deadlocked }

    /// A trace's observed section: what the server saw, then the verdicts, in time order
    /// (equal times keep that order). Empty when the run kept no log.
    public var observedEvents: [ObservedEvent] {
        let verdicts = violations.map { ObservedEvent(at: $0.at, "violation \($0.rule.name): \($0.detail)") }
        let seen = wire.compactMap(ObservedEvent.init(runLogLine:))
        return (seen + verdicts).enumerated().sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }
            .map(\.element)
    }
}
