import typealias LiveConnection.Mutex

/// Wakes every task parked on it when something they wait for may have changed.
///
/// ```swift
/// let bell = Doorbell()
/// while true {
///     let epoch = bell.epoch
///     if let value = check() { return value }   // read the state after the epoch
///     await bell.wait(after: epoch)             // returns at once if it rang since
///     if Task.isCancelled { throw .cancelled }
/// }
/// ```
///
/// The simulated network parks receives (waiting for a frame or a pong), hung handshakes and
/// delayed sends on a connection's doorbell and rings it on every change (a frame queued, a thaw, a close),
/// so each waiter re-checks the state itself. The epoch closes the gap between checking
/// and parking: a ring in between makes ``wait(after:)`` return at once. No waiter is
/// ever resumed by a timer or another thread, so wake-ups stay in the simulation's order.
final class Doorbell: Sendable {
    private struct State {
        var epoch: UInt64 = 0
        var nextTicket: UInt64 = 0
        var waiters: [(ticket: UInt64, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Mutex(State())

    init() {}

    /// Changes whenever the bell rings.
    var epoch: UInt64 { state.withLock { $0.epoch } }

    /// Wakes every parked waiter.
    func ring() {
        let waiters = state.withLock { state in
            state.epoch &+= 1
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.continuation.resume() }
    }

    /// The waiters a ring took off the bell, in the order they parked: ``wake()`` resumes them.
    struct Parked {
        fileprivate let waiters: [(ticket: UInt64, continuation: CheckedContinuation<Void, Never>)]

        func wake() { for waiter in waiters { waiter.continuation.resume() } }
    }

    /// Rings now and leaves the waking to the caller: the epoch moves at once, as in
    /// ``ring()``, and the waiters it parked come back (nil when none waits) for the caller
    /// to ``Parked/wake()`` once its own lock is released.
    ///
    /// Why: the network rings every link's bell on a thaw, a restart, the end of a hang and a
    /// path's return, and links pile up over a run (every attempt is one). Collecting the
    /// bells into an array to ring them one by one after the network's lock cost a retain, an
    /// append, a lock and a release per link, 4.3 % of an exploration's CPU; this costs an idle
    /// bell its lock, and allocates only for bells with waiters.
    func ringDeferringWakeUps() -> Parked? {
        state.withLock { state in
            state.epoch &+= 1
            guard !state.waiters.isEmpty else { return nil }
            defer { state.waiters = [] }
            return Parked(waiters: state.waiters)
        }
    }

    /// Parks until the bell rings after `epoch` (at once if it already did) or the task is cancelled.
    func wait(after epoch: UInt64) async {
        let ticket = state.withLock { state in
            defer { state.nextTicket &+= 1 }
            return state.nextTicket
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let parked = state.withLock { state -> Bool in
                    if state.epoch != epoch || Task.isCancelled { return false }
                    state.waiters.append((ticket, continuation))
                    return true
                }
                if !parked { continuation.resume() }
            }
        } onCancel: {
            let removed = state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard let index = state.waiters.firstIndex(where: { $0.ticket == ticket }) else { return nil }
                return state.waiters.remove(at: index).continuation
            }
            removed?.resume()
        }
    }
}
