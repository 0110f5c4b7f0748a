public import Testing

/// Runs each case of a test (or of every test in a suite) on ``PeerThreads``, off the
/// cooperative pool.
///
/// Give it to tests that wait on anything outside the process: a Python peer, a `livesim`
/// child, a real socket with a deadline. Such a test may block its thread (a pipe read, a
/// process wait), which on the pool would stall every other test; and its own deadlines must
/// not depend on how long the pool's queue is, which a long synchronous test on the pool
/// makes unbounded. ``PeerThreads`` starts a thread whenever its threads are all busy, so
/// neither happens.
///
/// The body stays in the test's own task, so `#expect`, `Test.current` and task-locals work
/// as anywhere else.
public struct WaitsOnPeersTrait: SuiteTrait, TestTrait, TestScoping {
    /// A suite's tests and nested suites all wait on peers.
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await withTaskExecutorPreference(PeerThreads.shared) {
            // The preference applies from the task's next enqueue, not at once (see ComputeBoundTrait).
            await Task.yield()
            try await function()
        }
    }
}

extension Trait where Self == WaitsOnPeersTrait {
    /// This test waits on processes or real sockets: run it on ``PeerThreads``, where a
    /// blocked thread stalls nobody and nobody's queue delays its deadlines.
    public static var waitsOnPeers: Self { Self() }
}
