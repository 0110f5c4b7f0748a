import LiveConnection
public import LiveConnectionRules
public import LiveConnectionTraces
import SimulationKernel
import Synchronization

/// Runs one `Scenario`: a `ConnectionManager` against a ``SimulatedNetwork`` on a
/// `VirtualClock`, with a driver applying the schedule and an ``InvariantMonitor``
/// checking every step.
///
/// ```swift
/// let scenario = ScenarioGenerator(duration: .seconds(600)).scenario(seed: 12)
/// let result = SimulationRun(scenario, variant: .named("skips-resubscribe")!).run()
/// result.violations.first?.rule   // .resubscribeBeforeOpen
/// ```
///
/// Synchronous and self-contained: each run builds its own clock, executor, network and
/// manager, so runs on different threads share nothing. The same scenario and variant
/// give the same log, byte for byte, on the same build. A run stops at the first
/// violation (unless `stopsAtFirstViolation` is false), which also ends runaway variants
/// such as a zero-delay retry loop.
public struct SimulationRun: Sendable {
    public var scenario: Scenario
    public var variant: LogicVariant
    /// Keep the event log (replay, traces) or only counters and violations (exploration).
    public var recordsLog: Bool
    public var stopsAtFirstViolation: Bool
    /// Check the invariants (off only to measure what checking costs).
    public var checksInvariants: Bool

    public init(
        _ scenario: Scenario, variant: LogicVariant = .correct, recordsLog: Bool = true,
        stopsAtFirstViolation: Bool = true, checksInvariants: Bool = true
    ) {
        self.scenario = scenario
        self.variant = variant
        self.recordsLog = recordsLog
        self.stopsAtFirstViolation = stopsAtFirstViolation
        self.checksInvariants = checksInvariants
    }

    /// Runs the scenario to its end (or its first violation) and returns what happened.
    public func run() -> RunResult {
        scenario.strategy.withStrategy { run(strategy: $0) }
    }

    private func run(strategy: some SchedulingStrategy) -> RunResult {
        typealias Job = @Sendable () async -> Void
        let scenario = self.scenario
        let clock = VirtualClock()
        let network = SimulatedNetwork(clock: clock, logCapacity: scenario.logCapacity)
        let recorder = RunRecorder(clock: clock, recordsLog: recordsLog)
        let (jobs, spawner) = AsyncStream.makeStream(of: Job.self)
        let stops = stopsAtFirstViolation
        // The identity server: a fresh token per fetch, after an expiry or before every connect.
        let issuer = CredentialsIssuer()
        let monitor = InvariantMonitor(
            configuration: scenario.configuration, network: network, clock: clock, credentials: issuer,
            spreadSeed: scenario.seed
        ) {
            if stops { spawner.finish() }
        }
        let logic = variant.logic(for: scenario.configuration)
        let checks = checksInvariants
        let driver = Driver(
            scenario: scenario, network: network, recorder: recorder, monitor: checks ? monitor : nil, clock: clock)

        let result = Simulation.run(strategy: strategy, clock: clock, until: scenario.duration + .seconds(60)) {
            let manager = ConnectionManager(
                configuration: scenario.configuration, transport: network, clock: clock,
                random: ScriptedWords(scenario.managerWords, then: Xoshiro256StarStar(seed: scenario.managerSeed)),
                credentials: issuer.provider, logic: logic,
                observer: { input, effects in
                    recorder.observe(input, effects)
                    if checks { monitor.observe(input, effects) }
                })
            // The app's view: subscribers that join at the start and later, each judged event by
            // event against what the manager decided, and at the end of its stream. Joining
            // waits on the clock inside the run (cancelled with it); reading the stream happens
            // outside it, never cancelled, so each reader sees everything its stream delivers
            // up to its end, which only `run()` ending brings.
            let (subscribed, subscription) = AsyncStream.makeStream(of: (Int, ConnectionEvents).self)
            await withDiscardingTaskGroup { readers in
                readers.addTask {
                    await withDiscardingTaskGroup { group in
                        group.addTask { await manager.run() }
                        for moment in checks ? EventSubscribers.moments(for: scenario) : [] {
                            group.addTask {
                                do { try await clock.sleep(until: .start + moment) } catch { return }
                                subscription.yield(await manager.events(reportingTo: monitor))
                            }
                        }
                        group.addTask {
                            await driver.run(manager: manager, spawn: { spawner.yield($0) })
                            spawner.finish()
                        }
                        for await job in jobs { group.addTask { await job() } }
                        group.cancelAll()
                    }
                    subscription.finish()
                }
                for await (id, stream) in subscribed {
                    readers.addTask {
                        for await event in stream { monitor.subscriber(id, received: event) }
                        monitor.subscriberEnded(id)
                    }
                }
            }
        }
        if checks { monitor.finish() }
        for violation in monitor.violations {
            recorder.note("violation \(violation.rule.name): \(violation.detail)")
        }
        recorder.note("end")
        var runResult = RunResult(
            seed: scenario.seed, variant: variant.name, log: recorder.lines, violations: monitor.violations,
            violationCounts: monitor.violationCounts, invariantChecks: monitor.checks, faults: recorder.faults,
            inputs: recorder.inputs, simulatedTime: result.finalTime.sinceStart, jobsRun: result.jobsRun,
            network: network.statistics, deadlocked: !result.bodyFinished)
        runResult.delayPool = monitor.delayPool
        return runResult
    }
}

/// Applies a scenario's schedule at its virtual times.
struct Driver: Sendable {
    let scenario: Scenario
    let network: SimulatedNetwork
    let recorder: RunRecorder
    let monitor: InvariantMonitor?
    let clock: VirtualClock

    func run(manager: ConnectionManager, spawn: @escaping @Sendable (@escaping @Sendable () async -> Void) -> Void)
        async
    {
        let start = clock.now
        // Actions at or after the end are not applied (a hand-written or edited schedule may have them).
        for scheduled in scenario.schedule where scheduled.at < scenario.duration {
            do { try await clock.sleep(until: start + scheduled.at) } catch { return }
            await apply(scheduled.action, to: manager, spawn: spawn)
            monitor?.check()
        }
        do { try await clock.sleep(until: start + scenario.duration) } catch { return }
        // The timed invariants once more at the end, before the harness tears the manager
        // down: a machine that waits forever with nothing armed produces no event that
        // would otherwise trigger the check. After it, the teardown is not judged, and a
        // late callback armed on the live socket is disarmed: the harness closing that
        // socket does not end its generation, so the callback would not be stale.
        monitor?.finish()
        network.disarmLateCallbacks()
    }

    private func apply(
        _ action: SimulationAction, to manager: ConnectionManager,
        spawn: @escaping @Sendable (@escaping @Sendable () async -> Void) -> Void
    ) async {
        // Noted before the action, so the checks the action itself triggers (through the
        // observer) already know the world changed.
        if action.disruptsTheWorld { monitor?.noteDisruption() }
        var applied = true
        switch action {
        case _ where network.apply(action): break
        case .deliverStale(let callback, let linger): applied = network.armLateCallback(callback, after: linger)
        case .setForeground(let foreground):
            monitor?.app(.setForeground(foreground))
            await manager.setForeground(foreground)
        case .connect(let endpoint):
            monitor?.app(.connect(Scenario.endpoint(endpoint).url))
            await manager.connect(to: Scenario.endpoint(endpoint))
        case .disconnect:
            monitor?.appDisconnects(with: Specification.plainDisconnectClose)
            monitor?.app(.disconnect)
            await manager.disconnect()
        case .disconnectWith(let code, let reason):
            monitor?.appDisconnects(with: CloseFrame(code: code, reason: reason))
            do throws(CloseRequestError) {
                // Told first, as every call; one the API refuses (RFC 6455 §7.4's codes, a
                // reason over 123 bytes) changes nothing the app wants.
                if code.isSendable && reason.utf8.count <= CloseRequestError.maximumReasonLength {
                    monitor?.app(.disconnect)
                }
                try await manager.disconnect(code: code, reason: reason)
            } catch {
                monitor?.appDisconnects(with: nil)
                applied = false
                recorder.note("disconnect refused: \(error)")
            }
        case .send(let text):
            let recorder = self.recorder
            spawn {
                do throws(CommandError) {
                    try await manager.send(text: text)
                    recorder.note("command \(text) sent")
                } catch {
                    recorder.note("command \(text) \(error)")
                }
            }
        case .ping(let timeout):
            let recorder = self.recorder
            spawn {
                let outcome = await manager.ping(timeout: timeout)
                recorder.note("ping \(outcome)")
            }
        case .subscribe(let topic):
            monitor?.app(.subscribe(topic))
            await manager.subscribe(topic)
        case .unsubscribe(let topic):
            monitor?.app(.unsubscribe(topic))
            await manager.unsubscribe(topic)
        case .path(let viable):
            // The network first, then the app's path monitor, in the same instant.
            network.setPathAvailable(viable)
            await manager.setPathViable(viable)
        default: preconditionFailure("\(action) is a network action, applied above")
        }
        recorder.action(action, applied: applied)
    }
}
