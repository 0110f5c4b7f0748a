/// The ready jobs of a ``SimulationExecutor`` in arrival order.
///
/// An array with a moving head, so that the common pick (index 0: FIFO, or a single
/// ready job) is O(1) and the order of the others is kept, as the ``SchedulingStrategy``
/// contract promises. Picks from the middle shift the tail, which is cheap at the
/// handful of ready jobs a simulation has at a time.
struct ReadyQueue {
    private var jobs: [UnownedJob] = []
    private var head = 0

    var count: Int { jobs.count - head }

    mutating func append(_ job: UnownedJob) {
        jobs.append(job)
    }

    /// Removes and returns the job at `index` (0 is the oldest).
    mutating func remove(at index: Int) -> UnownedJob {
        precondition(index >= 0 && index < count, "strategy picked job \(index) of \(count) ready")
        if index == 0 {
            let job = jobs[head]
            head += 1
            if head == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 1024, head * 2 >= jobs.count {
                jobs.removeFirst(head)
                head = 0
            }
            return job
        }
        return jobs.remove(at: head + index)
    }
}
