import Foundation

/// A task executor that never makes a job wait for a thread: when every one of its threads
/// is busy (or blocked), it starts another.
///
/// Tests that wait on other processes block a thread while they wait: `waitUntilExit`, a
/// read to the end of a pipe, a poll of a child's output. On the cooperative pool (one
/// thread per core) two such waits stop every other test in the process, and a peer test
/// elsewhere misses its handshake deadline (stop 21's CI: every socket suite stalled for
/// over a minute while two `livesim` runs held the pool's only two threads). Here a blocked
/// thread costs nothing but its stack, and the socket tests' short jobs never queue behind
/// anything: the operating system time-slices their threads with everyone else's.
///
/// Threads that finish a job wait for the next one; they live as long as the test process.
public final class PeerThreads: TaskExecutor, @unchecked Sendable {
    /// The threads every `.waitsOnPeers` test runs on.
    public static let shared = PeerThreads()

    /// Guards the fields below, and wakes a waiting thread when a job arrives.
    private let condition = NSCondition()
    private var queue: [UnownedJob] = []
    /// Where the oldest job in `queue` is; the array is compacted when it drains.
    private var head = 0
    /// Threads parked in `condition.wait()`, each of which will take a job when woken.
    private var waiting = 0
    /// Every thread's identity, added by the thread itself before it takes a job.
    private var threads: Set<UInt> = []

    private init() {}

    /// Whether the caller runs on one of these threads (by identity, not by name).
    public var isCurrent: Bool {
        let me = UInt(pthread_self())
        condition.lock()
        defer { condition.unlock() }
        return threads.contains(me)
    }

    /// How many threads it has started so far.
    public var threadCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return threads.count
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        queue.append(job)
        // Every queued job has a thread that is free to take it: a parked one, or a new one.
        // A thread busy with (or blocked in) another job is never counted on.
        let startAnother = queue.count - head > waiting
        condition.signal()
        condition.unlock()
        if startAnother { start() }
    }

    private func start() {
        Thread { [self] in
            // Named from inside, as in ComputeThreads: on Linux a name set before `start()` does
            // not reach the thread, which would keep its creator's. At most 15 characters.
            Thread.current.name = "waits-on-peers"
            condition.lock()
            threads.insert(UInt(pthread_self()))
            condition.unlock()
            work()
        }.start()
    }

    private func work() {
        while true {
            condition.lock()
            while head == queue.count {
                waiting += 1
                condition.wait()
                waiting -= 1
            }
            let job = queue[head]
            head += 1
            if head == queue.count {
                queue.removeAll(keepingCapacity: true)
                head = 0
            }
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
