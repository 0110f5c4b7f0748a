import Foundation

/// A task executor of its own threads, one per core, outside the cooperative pool.
///
/// Jobs wait in one first-in, first-out queue and the next free thread runs the oldest. The
/// threads live as long as the test process: tests enqueue onto ``shared`` until it exits.
public final class ComputeThreads: TaskExecutor, @unchecked Sendable {
    /// The threads every `.computeBound` test runs on.
    public static let shared = ComputeThreads(count: ProcessInfo.processInfo.activeProcessorCount)

    /// Guards `queue` and `threads`, and wakes a thread when a job arrives.
    private let condition = NSCondition()
    private var queue: [UnownedJob] = []
    /// The threads' identities, each added by its thread before it runs a job.
    private var threads: Set<UInt> = []

    private init(count: Int) {
        for index in 0..<max(1, count) {
            // Named from inside: on Linux a name set before `start()` does not reach the thread.
            // At most 15 characters, the kernel's limit: "compute-bound 0".
            Thread { [self] in
                Thread.current.name = "compute-bound \(index)"
                condition.lock()
                threads.insert(UInt(pthread_self()))
                condition.unlock()
                work()
            }.start()
        }
    }

    /// Whether the caller runs on one of these threads (by identity, not by name).
    public var isCurrent: Bool {
        let me = UInt(pthread_self())
        condition.lock()
        defer { condition.unlock() }
        return threads.contains(me)
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        queue.append(job)
        condition.signal()
        condition.unlock()
    }

    private func work() {
        while true {
            condition.lock()
            while queue.isEmpty { condition.wait() }
            let job = queue.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
