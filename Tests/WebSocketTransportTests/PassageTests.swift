import TestScheduling
import Testing

@testable import WebSocketTransport

/// `Passage` as a gate (open behind whoever passes): the lock's side is `AsyncSerialLockTests`.
@Suite("Passage left open: the server's gate", .timeLimit(.minutes(1)))
struct PassageTests {
    @Test("an open passage lets a task through at once and stays open")
    func openPassesAtOnce() async {
        let passage = Passage(isOpen: true)
        #expect(await passage.pass(closingBehind: false))
        #expect(passage.isOpen)
        #expect(passage.waiting == 0)
    }

    @Test("every task waiting at a closed passage goes through when it opens")
    func openingLetsEveryWaiterThrough() async {
        let passage = Passage(isOpen: false)
        let passed = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 { group.addTask { await passage.pass(closingBehind: false) } }
            while passage.waiting < 8 { await Task.yield() }
            passage.open()
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(passed == Array(repeating: true, count: 8))
        #expect(passage.waiting == 0)
    }

    @Test("a cancelled waiter leaves at once, and the others still wait")
    func cancelledWaiterLeaves() async {
        let passage = Passage(isOpen: false)
        let outcome = await withTaskGroup(of: Bool.self) { group in
            group.addTask { await passage.pass(closingBehind: false) }
            while passage.waiting < 1 { await Task.yield() }
            group.cancelAll()
            return await group.next() ?? true
        }
        #expect(!outcome)
        #expect(passage.waiting == 0)
        #expect(!passage.isOpen, "a cancellation does not open the passage")
    }

    /// The gate's version of the lock's race: opened while a waiter is between its first look
    /// (closed) and storing its continuation. Without the second look it waits for an opening
    /// that already happened.
    @Test("lets every waiter through, even when opened while they were still registering")
    func openedWhileRegistering() async {
        for round in 0..<2_000 {
            let passage = Passage(isOpen: false)
            let finished = await within(.seconds(5)) {
                await withTaskGroup(of: Bool.self) { group in
                    for _ in 0..<4 { group.addTask { await passage.pass(closingBehind: false) } }
                    passage.open()
                    return await group.allSatisfy { $0 }
                }
            }
            guard finished == true else {
                Issue.record("round \(round): a waiter never went through the opened passage")
                return
            }
        }
    }
}
