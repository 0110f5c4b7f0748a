public import LiveConnection
import LiveConnectionRules
import SimulationKernel

public import typealias LiveConnection.Mutex

/// Checks every invariant (`Rule.invariants`) after every step of a run.
///
/// ```swift
/// let monitor = InvariantMonitor(configuration: configuration, network: network, clock: clock)
/// let manager = ConnectionManager(configuration: configuration, transport: network, clock: clock,
///                                 observer: { input, effects in monitor.observe(input, effects) })
/// // … run …
/// monitor.finish()
/// monitor.violations   // the first violation of each invariant, in the order found
/// ```
///
/// Fed by three sources: the manager's observer (every input with its effects), the
/// driver (every external action, then ``check()``), and the world's truth (``WorldTruth``:
/// the simulated network, or an ``ObservedTransport`` around a real one).
/// ``SimulationRun`` wires it up; use it directly to check a manager you drive yourself,
/// in virtual time or, as `livesim connect --check` does, in real time.
public final class InvariantMonitor: Sendable {
    private let state: Mutex<MonitorState>
    private let now: @Sendable () -> VirtualClock.Instant
    private let onViolation: @Sendable () -> Void

    /// - Parameters:
    ///   - configuration: the manager's configuration, used only to pick which formula
    ///     applies (the backoff policy's name and parameters, P, T, the connect timeout).
    ///   - specification: what is right (close-code classes; the formulas themselves), stated
    ///     independently of the code under judgement.
    ///   - network: the simulated network whose truth the invariants compare with.
    ///   - clock: the run's virtual clock.
    ///   - credentials: the issuer behind the manager's credentials provider, if it has one:
    ///     `fresh-credentials-per-handshake` is judged only with it.
    ///   - spreadSeed: seeds the judge's own draws for `backoff-distribution`: a run's seed.
    ///   - onViolation: called (outside any lock) after the first violation of each
    ///     invariant; a run uses it to stop early.
    public convenience init(
        configuration: ConnectionConfiguration, specification: Specification = .seedDocuments,
        network: SimulatedNetwork, clock: VirtualClock, credentials: CredentialsIssuer? = nil,
        spreadSeed: UInt64 = 0, onViolation: @escaping @Sendable () -> Void = {}
    ) {
        self.init(
            configuration: configuration, specification: specification, world: network, now: { clock.now },
            credentials: credentials, spreadSeed: spreadSeed, onViolation: onViolation)
    }

    /// A monitor of any world, on any timeline.
    ///
    /// - Parameters:
    ///   - configuration: the manager's configuration, used only to pick which formula applies.
    ///   - specification: what is right, stated independently of the code under judgement.
    ///   - world: what the judge can know outside the manager.
    ///   - now: the current instant, as time since the run started (a real run maps its
    ///     clock onto a `VirtualClock.Instant`, so reports read the same in both worlds).
    ///   - tolerance: added to every time bound: how late a real clock's timers, and the
    ///     calls of ``check()``, may run. Zero in virtual time.
    ///   - credentials: the issuer behind the manager's credentials provider, if the judge knows it.
    ///   - spreadSeed: seeds the judge's own draws for `backoff-distribution` (where an atom's
    ///     transform lands in its jump): give each run its own (a run's seed), or pooled runs
    ///     are not independent.
    ///   - onViolation: called (outside any lock) after the first violation of each invariant.
    public init(
        configuration: ConnectionConfiguration, specification: Specification = .seedDocuments,
        world: any WorldTruth, now: @escaping @Sendable () -> VirtualClock.Instant, tolerance: Duration = .zero,
        credentials: CredentialsIssuer? = nil, spreadSeed: UInt64 = 0, onViolation: @escaping @Sendable () -> Void = {}
    ) {
        self.state = Mutex(
            MonitorState(
                configuration: configuration, specification: specification, world: world, tolerance: tolerance,
                issuer: credentials, spreadSeed: spreadSeed)
        )
        self.now = now
        self.onViolation = onViolation
    }

    /// The observer hook: one input and the effects it produced.
    public func observe(_ input: Input, _ effects: [Effect]) {
        let now = self.now()
        report(
            state.withLock { state in
                state.lookAtWorld()
                state.observe(input, effects, now: now)
                state.checkTime(now: now)
                return state.takeNewViolation()
            })
    }

    /// An `events()` subscriber joins now: call it on the manager's actor in the same turn
    /// as `events()` (`ConnectionManager.events(reportingTo:)` does), so the monitor knows
    /// which of the manager's decisions the new stream must carry. Returns its number.
    public func subscriberJoins() -> Int {
        state.withLock { $0.subscriberJoins() }
    }

    /// Subscriber `id` (from ``subscriberJoins()``) received `event` from its stream.
    public func subscriber(_ id: Int, received event: ConnectionEvent) {
        let now = self.now()
        report(
            state.withLock { state in
                state.subscriber(id, received: event, now: now)
                return state.takeNewViolation()
            })
    }

    /// The app makes `call` now (call it just before the manager's method, and ``check()``
    /// after it returns): what the app wants is taken from the call, not from the input the
    /// shell hands the machine for it, so a shell that forwards the wrong intent, or none,
    /// cannot hide it. The wish takes effect when the manager receives the call (inputs
    /// queued ahead of it are judged by what the app wanted before).
    public func app(_ call: AppCall) {
        state.withLock { $0.noteAppCall(call) }
    }

    /// Subscriber `id`'s stream finished (its `for await` loop ended without being cancelled):
    /// `streams-end-stopped` is judged now.
    public func subscriberEnded(_ id: Int) {
        let now = self.now()
        report(
            state.withLock { state in
                state.subscriberEnded(id, now: now)
                return state.takeNewViolation()
            })
    }

    /// The app is about to call `disconnect()` (`Specification.plainDisconnectClose`) or
    /// `disconnect(code:reason:)` with `frame`; nil when the manager refused that call. Only a
    /// disconnect the app asked for owes the server its frame: the harness shutting the
    /// manager down is not judged.
    public func appDisconnects(with frame: CloseFrame?) {
        state.withLock { $0.appAskedClose = frame }
    }

    /// Records an external action that disrupts the connection (a reset, a toggle, an intent).
    public func noteDisruption() {
        let now = self.now()
        state.withLock { $0.noteDisruption(now: now) }
    }

    /// Runs the time-dependent checks now (the driver calls it after every action).
    public func check() {
        let now = self.now()
        report(
            state.withLock { state in
                state.settleAppCalls()
                state.lookAtWorld()
                state.checkTime(now: now)
                return state.takeNewViolation()
            })
    }

    /// The last checks, at the end of the run; after it the timed invariants judge nothing.
    ///
    /// What happens after the end is the harness tearing the manager down (cancelling its
    /// tasks, closing its socket from outside the machine), not the world the manager is
    /// judged in: a close that arrives during the teardown sends a healthy manager to
    /// waiting at the last instant, and calling that a liveness failure is a false alarm.
    /// Safety invariants still watch every input. Calling it again does nothing.
    public func finish() {
        let now = self.now()
        report(
            state.withLock { state in
                guard !state.runEnded else { return false }
                state.lookAtWorld()
                state.checkTime(now: now)
                state.runEnded = true
                return state.takeNewViolation()
            })
    }

    /// The first violation of each invariant, in the order they were found.
    public var violations: [Violation] { state.withLock { $0.violations } }

    /// How many times each invariant was violated, in `Rule.invariants` order.
    public var violationCounts: [(invariant: Rule, count: Int)] {
        state.withLock { state in zip(Rule.invariants, state.violationCounts).map { ($0, $1) } }
    }

    /// Invariant evaluations so far.
    public var checks: Int { state.withLock { $0.checks } }

    /// The retry delays this run adds to `backoff-distribution`'s pool (judged over many runs).
    public var delayPool: BackoffDelayPool { state.withLock { $0.delayPool } }

    private func report(_ newViolation: Bool) {
        if newViolation { onViolation() }
    }
}

extension MonitorState {
    mutating func takeNewViolation() -> Bool {
        defer { sawNewViolation = false }
        return sawNewViolation
    }
}
