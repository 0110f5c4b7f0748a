import typealias LiveConnection.Mutex

/// A way through that is open or closed, with a first-in-first-out queue of tasks waiting at
/// it while it is closed; a cancelled waiter leaves the queue at once.
///
/// ```swift
/// let passage = Passage(isOpen: false)
/// // elsewhere: passage.open()
/// guard await passage.pass(closingBehind: false) else { throw CancellationError() }
/// ```
///
/// Why one type: `Gate` (a frozen server's tasks wait until it thaws) and `AsyncSerialLock`
/// (one frame writer at a time) are the same waiter: look under a lock, register, look again
/// while registering, and let a cancellation that arrives before the continuation is stored
/// win. Written twice, the second look (a release between the two looks would otherwise leave
/// a waiter queued forever, which once hung twenty concurrent pings) had to be got right twice.
/// Waiting holds no thread.
final class Passage: Sendable {
    private struct State {
        var isOpen: Bool
        var waiters: [(id: UInt64, continuation: CheckedContinuation<Bool, Never>)] = []
        var nextID: UInt64 = 0
        /// Waiters between their first look and storing their continuation.
        var registering: Set<UInt64> = []
        /// Registering waiters whose task was cancelled before their continuation was stored.
        var cancelledEarly: Set<UInt64> = []

        /// Lets the task through if the passage is open, closing it behind for a turnstile.
        mutating func enter(closingBehind: Bool) -> Bool {
            guard isOpen else { return false }
            if closingBehind { isOpen = false }
            return true
        }
    }

    private let state: Mutex<State>

    init(isOpen: Bool) {
        state = Mutex(State(isOpen: isOpen))
    }

    var isOpen: Bool { state.withLock { $0.isOpen } }

    /// How many tasks wait at the passage (tests wait on it to know the queue's order).
    var waiting: Int { state.withLock { $0.waiters.count } }

    /// Closes the passage; tasks that arrive from now on wait.
    func close() { state.withLock { $0.isOpen = false } }

    /// Opens the passage and lets every waiting task through.
    func open() {
        let waiting = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [] }
            return state.waiters.map(\.continuation)
        }
        for waiter in waiting { waiter.resume(returning: true) }
    }

    /// Closes the passage if it is open; returns whether it was (a lock's `tryAcquire`).
    func closeIfOpen() -> Bool { state.withLock { $0.enter(closingBehind: true) } }

    /// Lets the longest waiter through with the passage kept closed behind it, or opens the
    /// passage if nobody waits: a lock handed from its holder to the next in line.
    func handOver() {
        let next = state.withLock { state in
            precondition(!state.isOpen, "Passage handed over while open (a lock released while not held)")
            if state.waiters.isEmpty {
                state.isOpen = true
                return Optional<CheckedContinuation<Bool, Never>>.none
            }
            return state.waiters.removeFirst().continuation
        }
        next?.resume(returning: true)
    }

    /// Returns true at once if the passage is open, otherwise when it lets this task through;
    /// false if the task is cancelled first. `closingBehind` closes the passage as the task
    /// goes through (a lock); without it the passage stays open for the next (a gate).
    func pass(closingBehind: Bool) async -> Bool {
        let id: UInt64? = state.withLock { state in
            if state.enter(closingBehind: closingBehind) { return nil }
            state.nextID += 1
            state.registering.insert(state.nextID)
            return state.nextID
        }
        guard let id else { return true }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let now: Bool? = state.withLock { state in
                    state.registering.remove(id)
                    if state.cancelledEarly.remove(id) != nil { return false }
                    // Opened since the first look, with nobody queued to hand it to: through
                    // now. Queueing here instead would wait for an opening that never comes.
                    if state.enter(closingBehind: closingBehind) { return true }
                    state.waiters.append((id, continuation))
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                if let index = state.waiters.firstIndex(where: { $0.id == id }) {
                    return Optional(state.waiters.remove(at: index).continuation)
                }
                if state.registering.contains(id) { state.cancelledEarly.insert(id) }
                return nil
            }
            waiter?.resume(returning: false)
        }
    }
}
