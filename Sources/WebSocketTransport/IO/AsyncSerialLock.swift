import LiveConnection

import typealias LiveConnection.Mutex

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
/// cancellation.
final class AsyncSerialLock: Sendable {
    private struct State {
        var locked = false
        var waiters: [(id: UInt64, continuation: CheckedContinuation<Bool, Never>)] = []
        var nextID: UInt64 = 0
        var registering: Set<UInt64> = []
        var cancelledEarly: Set<UInt64> = []
    }

    private let state = Mutex(State())

    init() {}

    /// Takes the lock if it is free.
    func tryAcquire() -> Bool {
        state.withLock { state in
            if state.locked { return false }
            state.locked = true
            return true
        }
    }

    /// Waits for the lock; throws `.cancelled` if the task is cancelled first.
    func acquire() async throws(TransportError) {
        let id: UInt64? = state.withLock { state in
            if !state.locked {
                state.locked = true
                return nil
            }
            state.nextID += 1
            state.registering.insert(state.nextID)
            return state.nextID
        }
        guard let id else { return }
        let granted = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let granted: Bool? = state.withLock { state in
                    state.registering.remove(id)
                    if state.cancelledEarly.remove(id) != nil { return false }
                    // Released since we looked, with nobody queued to hand it to: ours now.
                    // Queueing here instead would wait for a release that never comes.
                    if !state.locked {
                        state.locked = true
                        return true
                    }
                    state.waiters.append((id, continuation))
                    return nil
                }
                if let granted { continuation.resume(returning: granted) }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                if let index = state.waiters.firstIndex(where: { $0.id == id }) {
                    return Optional(state.waiters.remove(at: index))
                }
                if state.registering.contains(id) { state.cancelledEarly.insert(id) }
                return nil
            }
            waiter?.continuation.resume(returning: false)
        }
        if !granted { throw .cancelled }
    }

    /// How many tasks are queued for the lock (tests wait on it to know the queue's order).
    var queued: Int { state.withLock { $0.waiters.count } }

    /// Hands the lock to the longest waiter, or frees it.
    func release() {
        let next = state.withLock { state in
            precondition(state.locked, "AsyncSerialLock released while not locked")
            if state.waiters.isEmpty {
                state.locked = false
                return Optional<CheckedContinuation<Bool, Never>>.none
            }
            return state.waiters.removeFirst().continuation
        }
        next?.resume(returning: true)
    }
}
