import Foundation
public import Testing

/// Runs each case of a test (or of every test in a suite) on threads outside the cooperative
/// pool: ``computeBound`` on ``OwnThreads/compute``, ``waitsOnPeers`` on ``OwnThreads/peers``.
///
/// Swift Testing runs tests on the cooperative pool, one thread per core, and on Linux
/// Dispatch's global queue shares those threads. Two kinds of test break that pool for
/// everyone else:
/// - A synchronous test that searches or simulates for minutes holds its thread until it
///   returns: in stop 20's CI no socket test finished in the first ~700 s, and a peer test's
///   60 s handshake deadline expired behind them.
/// - A test that blocks on another process (a pipe read, `waitUntilExit`) holds its thread
///   for as long as the child runs: in stop 21's CI two `livesim` runs held both threads and
///   every socket suite stalled for over a minute.
///
/// The operating system time-slices these threads with the pool's, so the tests left on the
/// pool, and those on ``OwnThreads/peers`` whose deadlines are real, keep making progress. The
/// body stays in the test's own task, so `#expect`, `Test.current` and task-locals work as
/// anywhere else.
public struct OwnThreadsTrait: SuiteTrait, TestTrait, TestScoping {
    /// Where the test's jobs run.
    let executor: any TaskExecutor

    /// A suite's tests and nested suites all run there.
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await withTaskExecutorPreference(executor) {
            // The preference applies from the task's next enqueue, not at once: without this
            // yield a synchronous body ran where the scope started, on the pool (seen in CI).
            await Task.yield()
            // `LIVESIM_TEST_CPU=1` prints each case's CPU seconds on its thread, to find what
            // the debug run spends its time on (docs/benchmarks.md); never asserted. Only a
            // body that ends on the thread it started on is printed (a synchronous one).
            guard ProcessInfo.processInfo.environment["LIVESIM_TEST_CPU"] != nil else { return try await function() }
            let thread = pthread_self()
            let start = Self.threadCPUSeconds()
            defer {
                if pthread_equal(thread, pthread_self()) != 0 {
                    let seconds = Self.threadCPUSeconds() - start
                    let arguments = testCase.map { String(String(describing: $0).prefix(300)) } ?? ""
                    FileHandle.standardError.write(Data("CPU \(seconds) \(test.id) \(arguments)\n".utf8))
                }
            }
            try await function()
        }
    }
}

extension OwnThreadsTrait {
    /// The calling thread's CPU time so far, in seconds.
    static func threadCPUSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}

extension Trait where Self == OwnThreadsTrait {
    /// This test computes for a long time and never waits on a peer (an exhaustive search,
    /// thousands of simulated runs): run it on ``OwnThreads/compute``, one per core.
    public static var computeBound: Self { Self(executor: OwnThreads.compute) }

    /// This test waits on processes or real sockets: run it on ``OwnThreads/peers``, where a
    /// blocked thread stalls nobody and nobody's queue delays its deadlines.
    public static var waitsOnPeers: Self { Self(executor: OwnThreads.peers) }
}
