/// The baseline: the least a single-threaded `TaskExecutor` can do. An unsynchronized
/// FIFO array, `runSynchronously`, nothing else: no lock, no strategy, one counter.
///
/// ```swift
/// let queue = BareJobQueue()
/// _ = Task(executorPreference: queue) { await work() }
/// queue.drain()
/// ```
///
/// The state lives behind a raw pointer, not in class properties, so that no dynamic
/// exclusivity checks are paid either: this is the floor. `@unchecked Sendable` is a lie
/// outside a benchmark, safe here only because every job that enqueues runs on the
/// draining thread. That is exactly the cost the `SimulationExecutor` pays to be safe (a
/// `Mutex`) plus what it pays to be steerable (a strategy call per job), which is what
/// the ratio measures. Shared by the kernel and simulator benchmarks (their baseline).
public final class BareJobQueue: TaskExecutor, @unchecked Sendable {
    private struct Storage {
        var jobs: [UnownedJob] = []
        var head = 0
        var jobsRun = 0
    }

    private let storage: UnsafeMutablePointer<Storage>

    public init() {
        storage = .allocate(capacity: 1)
        storage.initialize(to: Storage())
    }

    deinit {
        storage.deinitialize(count: 1)
        storage.deallocate()
    }

    public var jobsRun: Int { storage.pointee.jobsRun }

    public func enqueue(_ job: consuming ExecutorJob) {
        storage.pointee.jobs.append(UnownedJob(job))
    }

    public func drain() {
        let executor = asUnownedTaskExecutor()
        while storage.pointee.head < storage.pointee.jobs.count {
            let job = storage.pointee.jobs[storage.pointee.head]
            storage.pointee.head += 1
            // The same compaction as the simulation's ready queue, so that a queue that
            // never empties (many tasks yielding) does not grow without bound.
            if storage.pointee.head == storage.pointee.jobs.count {
                storage.pointee.jobs.removeAll(keepingCapacity: true)
                storage.pointee.head = 0
            } else if storage.pointee.head >= 1024, storage.pointee.head * 2 >= storage.pointee.jobs.count {
                storage.pointee.jobs.removeFirst(storage.pointee.head)
                storage.pointee.head = 0
            }
            storage.pointee.jobsRun += 1
            job.runSynchronously(on: executor)
        }
    }
}
