import Synchronization

/// Cancels one job of the manager's task group without cancelling the others.
///
/// ```swift
/// let signal = CancellationSignal()
/// group.addTask { await signal.cancelling { await attemptConnection() } }
/// signal.fire()   // later: the attempt is cancelled, the other children run on
/// ```
///
/// A task group cancels all of its children or none; a connection attempt must be
/// cancelled alone (timers need not be: a disarmed timer is dropped from the timer
/// schedule). The job runs its body as the one child of a group and waits on this signal
/// beside it: the signal fires, or the body ends and fires it, and the group is cancelled.
/// Cancellation stays structured and flows through whatever executor the manager runs on
/// (the simulator's, in tests).
final class CancellationSignal: Sendable {
    private enum State {
        case idle
        case waiting(CheckedContinuation<Void, Never>)
        case fired
    }

    private let state = Mutex(State.idle)

    init() {}

    /// Fires the signal: the job's body is cancelled (now, or as soon as it starts).
    func fire() {
        let waiter: CheckedContinuation<Void, Never>? = state.withLock { state in
            defer { state = .fired }
            if case .waiting(let continuation) = state { return continuation }
            return nil
        }
        waiter?.resume()
    }

    /// Runs `body`, cancelling it if the signal fires first.
    ///
    /// The body is the group's one child; the calling task waits on the signal itself, which
    /// the body fires when it ends. (A second child to wait, raced with `next()`, cost a task
    /// start and a group wake-up per connection attempt: docs/benchmarks.md.)
    func cancelling(_ body: @escaping @Sendable () async -> Void) async {
        await withDiscardingTaskGroup { group in
            group.addTask {
                await body()
                self.fire()
            }
            await wait()
            group.cancelAll()
        }
    }

    /// Returns when the signal fires or the waiting task is cancelled.
    private func wait() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumeNow: Bool = state.withLock { state in
                    switch state {
                    case .idle:
                        state = .waiting(continuation)
                        return false
                    case .fired:
                        return true
                    case .waiting:
                        preconditionFailure("a cancellation signal has one waiter (state waiting)")
                    }
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            fire()
        }
    }
}
