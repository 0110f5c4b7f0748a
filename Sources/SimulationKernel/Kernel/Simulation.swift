import Synchronization

import typealias LiveConnection.Mutex

/// Runs async code to completion on a ``SimulationExecutor`` and a ``VirtualClock``,
/// synchronously, on the calling thread.
///
/// ```swift
/// let clock = VirtualClock()
/// let result = Simulation.run(strategy: .random(seed: 7), clock: clock, until: .seconds(60)) {
///     try await withThrowingTaskGroup(of: Void.self) { group in
///         group.addTask { try await clock.sleep(for: .seconds(1)) }
///         group.addTask { try await clock.sleep(for: .seconds(2)) }
///         try await group.waitForAll()
///     }
/// }
/// // result.finalTime == 2000 ms of virtual time, reached in microseconds of wall time.
/// ```
///
/// The pump: run ready jobs, one at a time, in the order the strategy picks; when none is
/// ready, jump the clock to the next deadline, which wakes the sleepers due then; stop as
/// soon as the body has finished. If nothing is ready and nobody sleeps while the body is
/// unfinished, the run ends as ``SimulationResult/Outcome/deadlocked`` instead of hanging.
/// With a time limit, the clock never passes it: on reaching it the body's task is
/// cancelled and the pump goes on until the body finishes (or deadlocks). With a job
/// limit, a run that never finishes nor stops (a livelock) ends as
/// ``SimulationResult/Outcome/exceededJobLimit``.
///
/// **The one unstructured task.** The body starts in `Task(executorPreference:)`. A
/// synchronous driver cannot `await` its body, so structured concurrency has no way to
/// start it; this root task is owned by the driver, which runs every one of its jobs,
/// cancels it at the time limit and waits (by pumping) for it to finish. Everything the
/// body does below it is structured and inherits the executor preference, which is what
/// keeps it on the simulation. Library code never creates tasks of its own.
///
/// Simulations share nothing: each has its own clock and executor, so many can run in
/// parallel on different threads of one process. Do not reuse an executor across runs:
/// jobs left over from a deadlocked or livelocked run would run in the next one.
///
/// **A run stopped at its job limit is unwound.** Its tasks would otherwise never be freed
/// (nothing would ever resume them): an exploration of a client whose loops multiply leaked
/// every failing seed's whole task tree, 7.5 GB after 283 seeds. So at the limit the body is
/// cancelled and the jobs that cancellation makes ready are run (the clock stays where it
/// is; at most as many jobs again), which lets a body that honours cancellation end and
/// free its tasks. They are not counted in ``SimulationResult/jobsRun``; `onJobLimit` is
/// called first, so a judge can stop judging before the teardown.
public enum Simulation {
    /// Runs `body` to completion under `strategy`, in virtual time.
    ///
    /// - Parameters:
    ///   - strategy: picks the next ready job at every step.
    ///   - clock: the virtual clock the body sleeps on; it is advanced only by this driver.
    ///   - executor: a fresh executor unless given (e.g. to inspect its counters).
    ///   - timeLimit: virtual time, from the clock's `now` at the start, after which the
    ///     body is cancelled and time stops advancing. `nil`: no limit.
    ///   - jobLimit: the most jobs to run before giving up on a body that never lets time
    ///     advance (a livelock such as `while true { await Task.yield() }`, which no time
    ///     limit can stop). `nil`: no limit.
    ///   - revisedJobLimit: asked every 1,024 jobs with the jobs run so far; a limit it
    ///     returns replaces `jobLimit` (a judge that has its verdict lets a run-away body
    ///     run only so much further). `nil` from it keeps the limit as it is.
    ///   - onJobLimit: called once when the job limit is reached, before the body is unwound.
    ///   - body: the simulated program; it runs on the executor, on this thread.
    public static func run<Strategy: SchedulingStrategy, Value: Sendable>(
        strategy: Strategy,
        clock: VirtualClock,
        executor: SimulationExecutor = SimulationExecutor(),
        until timeLimit: Duration? = nil,
        jobLimit: Int? = nil,
        revisedJobLimit: ((_ jobsRun: Int) -> Int?)? = nil,
        onJobLimit: (() -> Void)? = nil,
        _ body: sending @escaping () async throws -> Value
    ) -> SimulationResult<Value> {
        var strategy = strategy
        let start = clock.now
        let limit = timeLimit.map { start.advanced(by: $0) }
        let jobsBefore = executor.jobsRun
        let choicesBefore = executor.schedulingChoices
        let outcome = RootOutcome<Value>()

        let root = Task(executorPreference: executor) {
            let result: Result<Value, any Error>
            do { result = .success(try await body()) } catch { result = .failure(error) }
            outcome.record(result)
        }

        var timeLimitReached = false
        var jobLimitReached = false
        var jobs = 0
        var maximumJobs = jobLimit ?? .max
        var finished: Result<Value, any Error>?
        pump: while true {
            if outcome.isRecorded {
                finished = outcome.result
                break pump
            }
            if jobs >= maximumJobs {
                jobLimitReached = true
                break pump
            }
            if executor.runNextJob(choosingWith: &strategy) {
                jobs += 1
                if jobs & 1023 == 0, let revised = revisedJobLimit?(jobs) { maximumJobs = revised }
                continue pump
            }
            guard let deadline = clock.nextDeadline else { break pump }
            if let limit, deadline > limit {
                guard !timeLimitReached else { break pump }
                timeLimitReached = true
                clock.advance(to: limit)
                root.cancel()
                continue pump
            }
            clock.advance(to: deadline)
        }

        let jobsRun = executor.jobsRun - jobsBefore
        if jobLimitReached {
            onJobLimit?()
            root.cancel()
            // Unwind: the jobs cancellation makes ready, in virtual time stopped where it was.
            var unwound = 0
            while !outcome.isRecorded && unwound < maximumJobs && executor.runNextJob(choosingWith: &strategy) {
                unwound += 1
            }
        }

        let unfinished: SimulationResult<Value>.Outcome = jobLimitReached ? .exceededJobLimit : .deadlocked
        return SimulationResult(
            outcome: finished.map { .finished($0) } ?? unfinished,
            finalTime: clock.now,
            jobsRun: jobsRun,
            schedulingChoices: executor.schedulingChoices - choicesBefore,
            timeLimitReached: timeLimitReached,
            pendingSleepers: clock.sleeperCount)
    }

    /// Runs `body` to completion with jobs in arrival order (``FIFOScheduling``).
    public static func run<Value: Sendable>(
        clock: VirtualClock,
        executor: SimulationExecutor = SimulationExecutor(),
        until timeLimit: Duration? = nil,
        jobLimit: Int? = nil,
        _ body: sending @escaping () async throws -> Value
    ) -> SimulationResult<Value> {
        run(strategy: FIFOScheduling(), clock: clock, executor: executor, until: timeLimit, jobLimit: jobLimit, body)
    }
}

/// The root task's result, handed from the task (which runs on the driver thread) to the
/// driver loop. Synchronized rather than a plain variable because `Task` requires its
/// closure's captures to be `Sendable`; the driver polls the atomic flag after every
/// job, which costs less than taking the lock each time.
private final class RootOutcome<Value: Sendable>: Sendable {
    private let slot = Mutex<Result<Value, any Error>?>(nil)
    private let recorded = Atomic<Bool>(false)

    var isRecorded: Bool { recorded.load(ordering: .acquiring) }

    var result: Result<Value, any Error>? { slot.withLock { $0 } }

    func record(_ result: Result<Value, any Error>) {
        slot.withLock { $0 = result }
        recorded.store(true, ordering: .releasing)
    }
}
