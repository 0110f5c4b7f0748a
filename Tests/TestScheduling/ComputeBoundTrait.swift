public import Testing

/// Runs each case of a test (or of every test in a suite) on ``ComputeThreads``, off the
/// cooperative pool.
///
/// Swift Testing runs tests on the cooperative pool, one thread per core. A synchronous test
/// that searches or simulates for minutes holds its thread until it returns, so on a 2-core
/// machine two such tests stop every other test: in a debug run no socket test finished in
/// the first ~700 s, and a peer test's 60 s handshake deadline expired behind them (the CI of
/// stop 20). Tests with this trait run on threads of their own instead, which the operating
/// system time-slices with the pool's, so tests that wait on real sockets and processes keep
/// making progress while the searches run. The body stays in the test's own task, so
/// `#expect`, `Test.current` and task-locals work as anywhere else.
///
/// Give it to tests that compute and never wait on a peer: an exhaustive search, thousands of
/// simulated runs.
public struct ComputeBoundTrait: SuiteTrait, TestTrait, TestScoping {
    /// A suite's tests and nested suites are all compute-bound.
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await withTaskExecutorPreference(ComputeThreads.shared) {
            // The preference applies from the task's next enqueue, not at once: without this
            // yield a synchronous body ran where the scope started, on the pool (seen in CI).
            await Task.yield()
            try await function()
        }
    }
}

extension Trait where Self == ComputeBoundTrait {
    /// This test computes for a long time: run it on ``ComputeThreads``, off the cooperative
    /// pool the socket tests need.
    public static var computeBound: Self { Self() }
}
