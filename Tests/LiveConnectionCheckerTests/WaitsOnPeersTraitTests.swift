import Foundation
import TestScheduling
import Testing

/// The `.waitsOnPeers` trait the process and socket suites carry: if its threads stopped
/// growing, a test that blocks on a child process would again stall the others (stop 21's CI).
@Suite("Tests that wait on peers run on threads that grow", .waitsOnPeers, .timeLimit(.minutes(1)))
struct WaitsOnPeersTraitTests {
    @Test("a synchronous test body runs on a peer thread")
    func synchronousBody() {
        #expect(OwnThreads.peers.isCurrent, "\(whereAmI())")
    }

    /// Four children block their threads until all four have arrived: more than the pool's
    /// one thread per core, so on the pool (or on a fixed set of threads) this never returns
    /// and the time limit fails it.
    @Test("more tasks than cores can block at once, and each still gets a thread")
    func blockedTasksDoNotStarveEachOther() async {
        let arrivals = Barrier(parties: 4)
        let met = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<4 {
                group.addTask { OwnThreads.peers.isCurrent && arrivals.arriveAndWait(seconds: 30) }
            }
            return await group.reduce(true) { $0 && $1 }
        }
        #expect(met, "each child ran on a peer thread and saw all four arrive")
        #expect(OwnThreads.peers.threadCount >= 4)
    }
}

/// Blocks each caller until `parties` callers have arrived, or the time runs out.
private final class Barrier: @unchecked Sendable {
    private let condition = NSCondition()
    private let parties: Int
    private var arrived = 0

    init(parties: Int) { self.parties = parties }

    /// True if all parties arrived within `seconds`.
    func arriveAndWait(seconds: Double) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        condition.lock()
        defer { condition.unlock() }
        arrived += 1
        condition.broadcast()
        while arrived < parties {
            if !condition.wait(until: end) { return arrived >= parties }
        }
        return true
    }
}
