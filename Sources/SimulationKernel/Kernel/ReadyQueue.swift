/// The ready jobs of a ``SimulationExecutor`` in arrival order.
///
/// An array used from `head` to `tail`, so that the common pick (index 0: FIFO, or a single
/// ready job) is O(1) and the order of the others is kept, as the ``SchedulingStrategy``
/// contract promises. Picks from the middle shift the older jobs, which is cheap at the
/// handful of ready jobs a simulation has at a time.
///
/// The array is never shrunk when the queue drains (which it does after most jobs): the
/// positions just start again at 0. Jobs are plain pointers, so a slot past `tail` needs no
/// clearing; `Array.removeAll(keepingCapacity:)` and `remove(at:)` both went through the
/// array's generic `replaceSubrange`, 0.7 % of an exploration's CPU.
struct ReadyQueue {
    private var jobs: [UnownedJob] = []
    private var head = 0
    private var tail = 0

    var count: Int { tail - head }

    mutating func append(_ job: UnownedJob) {
        if tail < jobs.count {
            jobs[tail] = job
        } else {
            jobs.append(job)
        }
        tail += 1
    }

    /// Removes and returns the job at `index` (0 is the oldest).
    ///
    /// A pick from the middle (random and PCT scheduling) moves the older jobs up by one and
    /// the head past them: the order is kept and nothing is allocated or freed. (Moving the
    /// younger ones down, `Array.remove(at:)`, also shrank the array through its generic
    /// `replaceSubrange`.)
    mutating func remove(at index: Int) -> UnownedJob {
        precondition(index >= 0 && index < count, "strategy picked job \(index) of \(count) ready")
        let job = jobs[head + index]
        if index > 0 {
            // One `memmove` (overlapping ranges are copied back to front): a loop of checked
            // element copies made random picks among 100 ready jobs a third slower.
            let head = self.head
            jobs.withUnsafeMutableBufferPointer { buffer in
                guard let older = buffer.baseAddress.map({ $0 + head }) else { return }
                (older + 1).update(from: older, count: index)
            }
        }
        head += 1
        if head == tail {
            head = 0
            tail = 0
        } else if head >= 1024, head * 2 >= tail {
            // A queue that never drains: move the live jobs to the front, once per 1,024 picks at most.
            for offset in 0..<(tail - head) { jobs[offset] = jobs[head + offset] }
            tail -= head
            head = 0
        }
        return job
    }
}
