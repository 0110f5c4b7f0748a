import LiveConnection

/// A FIFO lock for async code: one writer at a time puts a whole frame on the socket.
///
/// ```swift
/// try await lock.acquire()
/// defer { lock.release() }
/// try await stream.write(frame)
/// ```
///
/// Why: a frame may need several `write` calls with waits in between, and two senders
/// interleaving their bytes would corrupt the stream. A `Mutex` cannot be held across an
/// `await`; an actor would let a second sender in at the first `await`. Waiting honours
/// cancellation. The lock is a `Passage` that closes behind whoever goes through.
final class AsyncSerialLock: Sendable {
    private let passage = Passage(isOpen: true)

    init() {}

    /// Takes the lock if it is free.
    func tryAcquire() -> Bool { passage.closeIfOpen() }

    /// Waits for the lock; throws `.cancelled` if the task is cancelled first.
    func acquire() async throws(TransportError) {
        if !(await passage.pass(closingBehind: true)) { throw .cancelled }
    }

    /// How many tasks are queued for the lock (tests wait on it to know the queue's order).
    var queued: Int { passage.waiting }

    /// Hands the lock to the longest waiter, or frees it.
    func release() { passage.handOver() }
}
