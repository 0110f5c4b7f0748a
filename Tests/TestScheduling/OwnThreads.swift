import Foundation

/// A task executor of its own threads, outside the cooperative pool: a fixed set, or one
/// that starts another thread whenever every thread it has is busy.
///
/// Jobs wait in one first-in, first-out queue and the next free thread runs the oldest. The
/// threads live as long as the test process: tests enqueue onto ``compute`` and ``peers``
/// until it exits.
public final class OwnThreads: TaskExecutor, @unchecked Sendable {
    /// How many threads run the jobs.
    public enum Growth: Sendable {
        /// This many, started at once: work that computes gains nothing from more threads
        /// than cores, and would only slow the tests that wait on real deadlines.
        case fixed(Int)
        /// One more whenever a job arrives and no thread is free to take it, so a job never
        /// waits for a thread. Tests that wait on other processes block a thread while they
        /// wait (`waitUntilExit`, a read to a pipe's end); on a fixed set, two such waits stop
        /// every other test (stop 21's CI: every socket suite stalled for over a minute while
        /// two `livesim` runs held the pool's only two threads). Here a blocked thread costs
        /// nothing but its stack.
        case whenAllBusy
    }

    /// The threads every `.computeBound` test runs on: one per core.
    public static let compute = OwnThreads(
        name: "compute-bound", growth: .fixed(ProcessInfo.processInfo.activeProcessorCount))

    /// The threads every `.waitsOnPeers` test runs on: as many as are blocked, and one more.
    public static let peers = OwnThreads(name: "waits-on-peers", growth: .whenAllBusy)

    /// The threads' name: at most 15 characters, the kernel's limit.
    private let name: String
    private let growth: Growth
    /// Guards the fields below, and wakes a waiting thread when a job arrives.
    private let condition = NSCondition()
    private var queue: [UnownedJob] = []
    /// Where the oldest job in `queue` is; the array is compacted when it drains.
    private var head = 0
    /// Threads parked in `condition.wait()`, each of which will take a job when woken.
    private var waiting = 0
    /// Every thread's identity, added by the thread itself before it takes a job.
    private var threads: Set<UInt> = []

    private init(name: String, growth: Growth) {
        self.name = name
        self.growth = growth
        if case .fixed(let count) = growth {
            for _ in 0..<max(1, count) { start() }
        }
    }

    /// Whether the caller runs on one of these threads (by identity, not by name: on Linux a
    /// thread's name is the kernel's, which other code run on the same thread may change).
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
        // Growing: every queued job has a thread free to take it, a parked one or a new one;
        // a thread busy with (or blocked in) another job is never counted on.
        let startAnother = if case .whenAllBusy = growth { queue.count - head > waiting } else { false }
        condition.signal()
        condition.unlock()
        if startAnother { start() }
    }

    private func start() {
        Thread { [self] in
            // Named from inside: on Linux a name set before `start()` does not reach the
            // thread, which would keep its creator's.
            Thread.current.name = name
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
