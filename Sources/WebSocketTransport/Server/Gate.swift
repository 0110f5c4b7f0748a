import typealias LiveConnection.Mutex

/// A gate tasks pass while it is open and wait at while it is shut: how a frozen server
/// stops reading, writing and answering handshakes without closing anything.
///
/// ```swift
/// gate.shut()
/// try await gate.pass()   // suspends until gate.open(), or throws .cancelled
/// ```
///
/// Waiting holds no thread, and a cancelled waiter leaves at once (the server's own
/// shutdown cancels every connection task).
package final class Gate: Sendable {
    private struct State {
        var isOpen = true
        var waiters: [UInt64: CheckedContinuation<Bool, Never>] = [:]
        var nextID: UInt64 = 0
        var registering: Set<UInt64> = []
        var cancelledEarly: Set<UInt64> = []
    }

    private let state = Mutex(State())

    package init() {}

    package var isOpen: Bool { state.withLock { $0.isOpen } }

    package func shut() { state.withLock { $0.isOpen = false } }

    package func open() {
        let waiting = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiting { waiter.resume(returning: true) }
    }

    /// Returns at once if open; otherwise when opened. Throws `CancellationError` if the task is cancelled.
    package func pass() async throws(CancellationError) {
        let id: UInt64? = state.withLock { state in
            if state.isOpen { return nil }
            state.nextID += 1
            state.registering.insert(state.nextID)
            return state.nextID
        }
        guard let id else { return }
        let passed = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let now: Bool? = state.withLock { state in
                    state.registering.remove(id)
                    if state.cancelledEarly.remove(id) != nil { return false }
                    if state.isOpen { return true }
                    state.waiters[id] = continuation
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                if state.registering.contains(id) { state.cancelledEarly.insert(id) }
                return state.waiters.removeValue(forKey: id)
            }
            waiter?.resume(returning: false)
        }
        if !passed { throw CancellationError() }
    }
}
