import Synchronization

/// A first-in, first-out queue that one task reads and any task writes: the manager's queue
/// of jobs, each generation's orders, and each `events()` subscriber's events.
///
/// ```swift
/// let mailbox = Mailbox<Int>()
/// mailbox.post(1)
/// mailbox.finish()
/// while let n = await mailbox.next() { print(n) }   // 1, then the loop ends
/// ```
///
/// Why not `AsyncStream`: the shell hands every job and every order through one of these, and
/// the standard library's `AsyncStream` storage is generic code the compiler cannot specialize
/// for our element types, so each `yield` and `next` looked up type metadata at run time
/// (14 % of the simulator's CPU under `AsyncStream` alone; docs/benchmarks.md). This type is
/// compiled with the module, specialized for each element type, and does one lock per call.
///
/// Semantics the shell relies on: elements come out in the order they were posted; after
/// ``finish()`` the reader still gets what was queued, then `nil`; once the reading task is
/// cancelled, ``next()`` returns `nil` and the rest is dropped (a cancelled generation sends
/// nothing more); a post after either is dropped.
final class Mailbox<Element: Sendable>: Sendable {
    private struct State {
        var queue: [Element] = []
        /// The index of the oldest element of `queue` not yet read.
        var head = 0
        /// The reader, suspended in ``next()`` because `queue` was empty.
        var reader: UnsafeContinuation<Element?, Never>?
        var isFinished = false
        var isCancelled = false

        /// What a read gets without waiting: the oldest element, or `nil` once cancelled or
        /// finished and drained; no answer (`.none`) if the reader must wait.
        mutating func take() -> Element?? {
            if isCancelled { return .some(nil) }
            guard head < queue.count else { return isFinished ? .some(nil) : .none }
            let element = queue[head]
            head += 1
            if head == queue.count {
                queue.removeAll(keepingCapacity: true)
                head = 0
            }
            return .some(element)
        }
    }

    private let state = Mutex(State())

    init() {}

    /// Queues `element`, or hands it straight to a waiting reader.
    func post(_ element: Element) {
        let reader: UnsafeContinuation<Element?, Never>? = state.withLock { state in
            guard !state.isFinished else { return nil }
            if let reader = state.reader {
                state.reader = nil
                return reader
            }
            state.queue.append(element)
            return nil
        }
        reader?.resume(returning: element)
    }

    /// No more posts: the reader drains what is queued, then gets `nil`.
    func finish() {
        let reader: UnsafeContinuation<Element?, Never>? = state.withLock { state in
            state.isFinished = true
            defer { state.reader = nil }
            return state.reader
        }
        reader?.resume(returning: nil)
    }

    /// The oldest queued element, waiting for one if there is none; `nil` once finished and
    /// drained, or once the calling task is cancelled.
    func next() async -> Element? {
        // Most reads find an element queued: take it without suspending (a cancelled reader
        // goes the long way, whose cancellation handler ends the mailbox).
        if !Task.isCancelled, let answer = state.withLock({ $0.take() }) { return answer }
        return await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Element?, Never>) in
                let answer: Element?? = state.withLock { state in
                    if let answer = state.take() { return answer }
                    // As `AsyncStream`: a second reader would leave the first waiting forever.
                    precondition(state.reader == nil, "a mailbox is read from one task at a time")
                    state.reader = continuation
                    return nil
                }
                if let answer { continuation.resume(returning: answer) }
            }
        } onCancel: {
            cancel()
        }
    }

    /// The reader's task was cancelled: it gets `nil` now and from every later ``next()``.
    private func cancel() {
        let reader: UnsafeContinuation<Element?, Never>? = state.withLock { state in
            state.isCancelled = true
            state.isFinished = true
            state.queue.removeAll()
            state.head = 0
            defer { state.reader = nil }
            return state.reader
        }
        reader?.resume(returning: nil)
    }
}
