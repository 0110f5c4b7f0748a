import typealias LiveConnection.Mutex

/// A `TaskExecutor` that only queues jobs; a driver runs them, one at a time, on its own
/// thread, in an order chosen by a seeded ``SchedulingStrategy``.
///
/// ```swift
/// let executor = SimulationExecutor()
/// var strategy = RandomScheduling(seed: 1)
/// // … start a task with Task(executorPreference: executor) …
/// while executor.runNextJob(choosingWith: &strategy) {}
/// ```
///
/// A task started with this executor as its preference, its child tasks (task groups,
/// `async let`), the default actors it calls and the continuations it resumes all enqueue
/// here. Nothing runs until the driver calls ``runNextJob(choosingWith:)``, which runs the
/// picked job synchronously on the caller's thread. One thread and a seeded choice is the
/// whole determinism argument: the same seed picks the same job at every step, so the
/// same program produces the same interleaving, byte for byte.
///
/// There is no global state: each simulation owns an executor, so any number of
/// simulations run in parallel on different threads (Swift Testing runs tests in
/// parallel). The ready queue sits behind a `Mutex` because `enqueue` may be called from
/// any thread (e.g. code that escaped to the global executor resuming a continuation);
/// only the driver thread ever runs jobs.
public final class SimulationExecutor: TaskExecutor, Sendable {
    private struct State {
        var ready = ReadyQueue()
        var jobsRun = 0
        var schedulingChoices = 0
    }

    private let state = Mutex(State())

    /// An executor with an empty ready queue.
    public init() {}

    /// Queues a job; it runs when the driver picks it.
    public func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        state.withLock { $0.ready.append(unowned) }
    }

    /// Whether any job is waiting to run.
    public var hasReadyJobs: Bool { state.withLock { $0.ready.count > 0 } }

    /// The number of jobs waiting to run.
    public var readyCount: Int { state.withLock { $0.ready.count } }

    /// Jobs run so far by this executor.
    public var jobsRun: Int { state.withLock { $0.jobsRun } }

    /// Picks made among two or more ready jobs: the decisions a schedule consists of.
    public var schedulingChoices: Int { state.withLock { $0.schedulingChoices } }

    /// Picks one ready job with `strategy` and runs it to its next suspension point on
    /// the calling thread.
    ///
    /// - Returns: `false` (and runs nothing) when no job is ready.
    @discardableResult
    public func runNextJob<Strategy: SchedulingStrategy>(choosingWith strategy: inout Strategy) -> Bool {
        let job = state.withLock { state -> UnownedJob? in
            let count = state.ready.count
            guard count > 0 else { return nil }
            if count > 1 { state.schedulingChoices += 1 }
            state.jobsRun += 1
            return state.ready.remove(at: strategy.pick(readyCount: count))
        }
        guard let job else { return false }
        // Outside the lock: the job enqueues more jobs onto this executor.
        job.runSynchronously(on: asUnownedTaskExecutor())
        return true
    }
}
