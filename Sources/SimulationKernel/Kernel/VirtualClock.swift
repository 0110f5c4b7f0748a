import Synchronization

import typealias LiveConnection.Mutex

/// A `Clock` whose time moves only when the simulation driver moves it.
///
/// ```swift
/// let clock = VirtualClock()
/// let result = Simulation.run(strategy: .fifo, clock: clock) {
///     try await clock.sleep(for: .milliseconds(1500))
///     try await clock.sleep(for: .seconds(2))
///     return clock.now
/// }
/// // result.finalTime == 3500 ms of virtual time; no wall time passed.
/// ```
///
/// Time is integer nanoseconds since the start (``Instant``). A sleep parks an unsafe
/// continuation in a min-heap keyed by (deadline, insertion sequence); the driver
/// (``Simulation``, or a test calling ``advance(to:)``) jumps `now` to the next deadline
/// when nothing else can run and resumes every sleeper that is due, earliest first and,
/// among equal deadlines, in the order the sleeps began. Nothing here reads the wall clock.
///
/// **Sleeps that are already due still suspend.** A sleep whose deadline is at or before
/// `now` (including `sleep(for: .zero)`) is parked at `now` like any other and wakes on the
/// driver's next ``advanceToNextDeadline()``, which happens only once no job is ready. So a
/// zero sleep is a deterministic "let everything runnable at this instant run first", never
/// a silent no-op whose effect would depend on whether the sleep happened to be reached
/// before or after some other job.
///
/// **Cancellation** removes the sleeper from the heap and resumes it by throwing
/// `CancellationError`, so a cancelled timer neither keeps the heap non-empty nor drags
/// virtual time forward to a deadline nobody waits for. Sleeping in an already cancelled
/// task throws at once.
///
/// Sleepers park an `UnsafeContinuation` rather than a checked one: a checked continuation
/// costs an allocation and an atomic per sleep, about half the cost of a virtual timer in
/// the kernel benchmark. It is safe here by construction: a continuation is resumed only
/// by whoever removes its entry from the heap under the lock (``advance(to:)`` or the
/// cancellation handler), or, when the task is already cancelled, at once and never
/// inserted; so exactly once.
///
/// The clock is `Sendable` and guards its state with a `Mutex`: a simulation drives it from
/// one thread, but nothing stops code from reading `now` elsewhere, and a data race would
/// be the one kind of nondeterminism no seed could reproduce.
public final class VirtualClock: Clock, Sendable {
    private struct State {
        var now: Instant
        var sleepers = SleeperHeap()
        var nextSequence: UInt64 = 0
    }

    private let state: Mutex<State>
    /// `state.now`, stored under the lock whenever it moves, so that reading the time takes
    /// no lock: the shell, the network and the monitor read it several times per job, and
    /// the lock was 1 % of an exploration's CPU.
    private let published: Atomic<Int64>

    /// A clock at ``Instant/start`` (or another instant) with no sleepers.
    public init(startingAt start: Instant = .start) {
        state = Mutex(State(now: start))
        published = Atomic(start.nanosecondsSinceStart)
    }

    /// The current virtual time.
    public var now: Instant { Instant(nanosecondsSinceStart: published.load(ordering: .acquiring)) }

    /// One nanosecond: virtual time is exact to the nanosecond.
    public var minimumResolution: Duration { .nanoseconds(1) }

    /// Suspends until the driver advances virtual time to `deadline` (or past it).
    ///
    /// The tolerance is ignored: virtual timers fire exactly at their deadline, which is
    /// what makes "detected within P + T" an exact statement in a simulation.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let sequence = state.withLock { state in
            defer { state.nextSequence += 1 }
            return state.nextSequence
        }
        try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Void, any Error>) in
                let parked = state.withLock { state -> Bool in
                    // Read under the lock: cancellation sets the flag before it runs the
                    // handler, and the handler takes this lock, so either we see the flag
                    // here or the handler finds the entry we insert.
                    if Task.isCancelled { return false }
                    let due = max(deadline, state.now)
                    state.sleepers.insert(.init(deadline: due, sequence: sequence, continuation: continuation))
                    return true
                }
                if !parked { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let removed = state.withLock { $0.sleepers.remove(sequence: sequence) }
            removed?.continuation.resume(throwing: CancellationError())
        }
    }

    // MARK: - Driver API

    /// The earliest deadline of a parked sleeper, or `nil` when nobody sleeps.
    public var nextDeadline: Instant? { state.withLock { $0.sleepers.first?.deadline } }

    /// How many sleepers are parked (cancelled sleeps are removed at once).
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Sets `now` to `instant` and resumes every sleeper due by then, in heap order.
    ///
    /// Resuming enqueues each sleeper's task on its executor; under a
    /// ``SimulationExecutor`` they then run in the order the scheduling strategy picks.
    /// Time never goes backwards: an instant before `now` only wakes sleepers already due.
    /// - Returns: the number of sleepers resumed.
    @discardableResult
    public func advance(to instant: Instant) -> Int {
        let due = state.withLock { state -> [SleeperHeap.Entry] in
            state.now = max(state.now, instant)
            published.store(state.now.nanosecondsSinceStart, ordering: .releasing)
            var due: [SleeperHeap.Entry] = []
            while state.sleepers.first.map({ $0.deadline <= state.now }) == true,
                let entry = state.sleepers.popFirst()
            {
                due.append(entry)
            }
            return due
        }
        // Resume outside the lock: a resumption enqueues a job, and the executor (or a
        // woken task on another thread) may call back into this clock.
        for entry in due { entry.continuation.resume() }
        return due.count
    }

    /// Advances `now` by `duration` and resumes every sleeper due by then.
    @discardableResult
    public func advance(by duration: Duration) -> Int {
        advance(to: now.advanced(by: duration))
    }

    /// Jumps to the earliest deadline and resumes every sleeper due then.
    ///
    /// - Returns: the new `now`, or `nil` (time unchanged) when nobody sleeps.
    @discardableResult
    public func advanceToNextDeadline() -> Instant? {
        guard let deadline = nextDeadline else { return nil }
        advance(to: deadline)
        return deadline
    }
}
