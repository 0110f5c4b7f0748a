import TestScheduling
import Testing

@testable import WebSocketTransport

@Suite("Async serial lock", .timeLimit(.minutes(1)))
struct AsyncSerialLockTests {
    /// The lock is released while each contender is between its first look (held) and
    /// queueing its continuation. A contender that then queues without looking again waits
    /// for a release nobody will make: twenty concurrent pings once hung `EchoPeerTests`
    /// for its whole two minutes that way, one ping never sent.
    @Test("grants every waiter, even when released while they were still queueing")
    func releasedWhileQueueing() async {
        let lock = AsyncSerialLock()
        for round in 0..<10_000 {
            #expect(lock.tryAcquire())
            let finished = await within(.seconds(5)) {
                await withTaskGroup(of: Void.self) { group in
                    for _ in 0..<4 {
                        group.addTask {
                            guard (try? await lock.acquire()) != nil else { return }
                            lock.release()
                        }
                    }
                    lock.release()
                    await group.waitForAll()
                }
                return true
            }
            guard finished == true else {
                Issue.record("round \(round): a waiter was never granted the lock")
                return
            }
        }
    }

    @Test("lets one holder in at a time, in the order they queued")
    func exclusiveAndFirstInFirstOut() async throws {
        let lock = AsyncSerialLock()
        let record = Locked((holders: 0, most: 0, order: [Int]()))
        #expect(lock.tryAcquire())
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<16 {
                group.addTask {
                    try await lock.acquire()
                    record.withLock {
                        $0.holders += 1
                        $0.most = max($0.most, $0.holders)
                        $0.order.append(index)
                    }
                    await Task.yield()
                    record.withLock { $0.holders -= 1 }
                    lock.release()
                }
                // Queued before the next one starts: the order of the queue is known.
                while lock.queued < index + 1 { await Task.yield() }
            }
            lock.release()
            try await group.waitForAll()
        }
        let (_, most, order) = record.value
        #expect(most == 1)
        #expect(order == Array(0..<16))
        #expect(lock.tryAcquire(), "free again once every holder released it")
    }

    @Test("a cancelled waiter leaves the queue and does not take the lock")
    func cancelledWaiter() async {
        let lock = AsyncSerialLock()
        #expect(lock.tryAcquire())
        let granted = await withTaskGroup(of: Bool.self) { group in
            group.addTask { (try? await lock.acquire()) != nil }
            while lock.queued < 1 { await Task.yield() }
            group.cancelAll()
            return await group.next() ?? true
        }
        #expect(!granted)
        #expect(lock.queued == 0)
        lock.release()
        #expect(lock.tryAcquire(), "the cancelled waiter was not handed the lock")
    }
}
