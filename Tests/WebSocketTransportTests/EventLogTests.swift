import LiveConnection
import TestScheduling
import Testing

/// The peer tests' event log: a wait that is never answered must end when its task is
/// cancelled, or one stuck peer test hangs the whole `swift test` run past every deadline
/// (as CredentialsPeerTests once did at load 20).
@Suite("The peer tests' event log", .waitsOnPeers, .timeLimit(.minutes(1)))
struct EventLogTests {
    @Test("a wait whose event never comes ends when its task is cancelled, before or after it began")
    func cancelledWaitEnds() async {
        let log = EventLog()
        for cancelFirst in [false, true] {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    if cancelFirst { withUnsafeCurrentTask { $0?.cancel() } }
                    await log.wait { _ in false }
                }
                group.cancelAll()
                await group.next()
            }
        }
        // A later matching event still reaches a later wait: cancelled waiters left nothing behind.
        async let seen: Void = log.wait { if case .phase(.idle) = $0 { true } else { false } }
        await log.record(.phase(.idle))
        await seen
        #expect(await log.count == 1)
    }
}
