import Testing

@testable import LiveConnection

/// The mailbox the shell hands its jobs and each generation's orders through: what the
/// manager relies on from it (order, draining on finish, nothing after cancellation).
@Suite("Mailbox")
struct MailboxTests {
    @Test("elements come out in the order they were posted, queued or handed to a waiting reader")
    func order() async {
        let mailbox = Mailbox<Int>()
        mailbox.post(1)
        mailbox.post(2)
        #expect(await mailbox.next() == 1)
        #expect(await mailbox.next() == 2)
        async let third = mailbox.next()  // waits: nothing is queued
        await Task.yield()
        mailbox.post(3)
        mailbox.post(4)
        #expect(await third == 3)
        #expect(await mailbox.next() == 4)
    }

    @Test("after finish the reader drains what was queued, then gets nil; later posts are dropped")
    func finishDrains() async {
        let mailbox = Mailbox<String>()
        mailbox.post("a")
        mailbox.post("b")
        mailbox.finish()
        mailbox.post("late")
        #expect(await mailbox.next() == "a")
        #expect(await mailbox.next() == "b")
        #expect(await mailbox.next() == nil)
        #expect(await mailbox.next() == nil)
    }

    @Test("finish wakes a waiting reader with nil")
    func finishWakesReader() async {
        let mailbox = Mailbox<Int>()
        async let waiting = mailbox.next()
        await Task.yield()
        mailbox.finish()
        #expect(await waiting == nil)
    }

    @Test("a cancelled reader gets nil at once and from then on, queued elements or not")
    func cancellation() async {
        let mailbox = Mailbox<Int>()
        let waited: Int?? = await withTaskGroup(of: Int?.self) { group in
            group.addTask { await mailbox.next() }
            group.cancelAll()
            return await group.next()
        }
        #expect(waited == .some(nil))

        let queued = Mailbox<Int>()
        queued.post(1)
        let taken: Int?? = await withTaskGroup(of: Int?.self) { group in
            group.cancelAll()  // children added to a cancelled group start cancelled
            group.addTask { await queued.next() }
            return await group.next()
        }
        #expect(taken == .some(nil), "a cancelled reader takes nothing, even what is queued")
        queued.post(2)
        #expect(await queued.next() == nil, "the mailbox ended with its reader's cancellation")
    }
}
