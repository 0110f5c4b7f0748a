import Foundation
import TestScheduling
import Testing

/// The `.computeBound` trait every suite of this target carries: if it stopped moving tests off
/// the cooperative pool, the searches here would again starve the socket tests (stop 20's CI).
@Suite("Compute-bound tests run off the cooperative pool", .computeBound)
struct ComputeBoundTraitTests {
    @Test("a synchronous test body runs on a compute thread, and its expectations are recorded")
    func synchronousBody() {
        #expect(onComputeThread(), "\(whereAmI())")
        #expect(Test.current?.name == "synchronousBody()")
    }

    @Test("an async test body stays on the compute threads across a suspension")
    func asyncBody() async {
        await Task.yield()
        #expect(onComputeThread(), "\(whereAmI())")
    }

    @Test("each argument of a parameterized test runs on a compute thread", arguments: 0..<3)
    func eachCase(_ index: Int) {
        #expect(onComputeThread(), "case \(index): \(whereAmI())")
    }
}

/// Whether the caller runs on one of ``OwnThreads/compute``' threads.
private func onComputeThread() -> Bool { OwnThreads.compute.isCurrent }

/// The calling thread, for a failure's message: its name and identity.
func whereAmI() -> String {
    "thread \(Thread.current.name ?? "unnamed") (\(UInt(pthread_self())))"
}
