/// The children a client's `run()` runs: work started from an intent (a loop, a timer)
/// is handed to `run()`'s task group instead of being spawned with `Task {}`.
///
/// ```swift
/// let jobs = JobQueue()
/// func run() async { await jobs.run() }              // the client's lifetime
/// func start() { jobs.add { await self.loop() } }    // a child of run(), cancelled with it
/// ```
///
/// This is how the replicas stay within structured concurrency while keeping the
/// designs they copy (a loop started per `start()` call, a timer per connect).
struct JobQueue: Sendable {
    typealias Job = @Sendable () async -> Void
    private let jobs: AsyncStream<Job>
    private let continuation: AsyncStream<Job>.Continuation

    init() { (jobs, continuation) = AsyncStream.makeStream(of: Job.self) }

    /// Runs every job added, each as a child task, until the calling task is cancelled.
    func run() async {
        await withDiscardingTaskGroup { group in
            for await job in jobs { group.addTask { await job() } }
            group.cancelAll()
        }
    }

    func add(_ job: @escaping Job) { continuation.yield(job) }
}
