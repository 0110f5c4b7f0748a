import WebSocketTransport

import typealias LiveConnection.Mutex

/// The frames of one direction of a proxied connection, between the task that reads them from
/// one link and the task that writes them to the other, with a byte limit.
///
/// ```swift
/// guard await queue.push(item) else { return }   // waits while the queue is full
/// while let item = await queue.next() { … }       // the writer: latency, slicing, write
/// ```
///
/// Unlike the server's ``Outbox`` (which refuses and resets a client that does not read), the
/// proxy pushes back: a full queue stops the reader, so a slow receiver slows its sender
/// through TCP's own flow control and nothing is lost. The queue holds under its limit plus one
/// frame (one frame of any allowed size always fits in an empty queue), and every change is
/// charged to the proxy's ``BufferBudget``. Frames that come after a close frame was queued
/// toward the same link are discarded (nothing may follow a close, RFC 6455 §5.5.1) and counted.
final class RelayQueue: Sendable {
    struct Item: Sendable {
        var opcode: Opcode
        var payload: [UInt8]
        var enqueuedAt: ContinuousClock.Instant
    }

    private struct State {
        var items: [Item] = []
        var head = 0
        var bytes = 0
        /// The reader ended: the writer drains what is queued, then `next()` returns nil.
        var finished = false
        /// The connection is over: queued items are dropped, pushes refused, waiters woken.
        var ended = false
        var closeQueued = false
        var discardedAfterClose = 0
        var writer: CheckedContinuation<Item?, Never>?
        var pusher: CheckedContinuation<Bool, Never>?
    }

    private let state = Mutex(State())
    let byteLimit: Int
    private let budget: BufferBudget
    private let owner: UInt64

    init(byteLimit: Int, budget: BufferBudget, owner: UInt64) {
        self.byteLimit = byteLimit
        self.budget = budget
        self.owner = owner
    }

    /// Frames dropped because a close frame had already been queued this way.
    var discardedAfterClose: Int { state.withLock { $0.discardedAfterClose } }

    /// Queues a frame once the queue is under its limit; false when the connection is over.
    /// A frame after a queued close is discarded (and counted) but returns true: the reader
    /// goes on reading, to see its peer's close.
    func push(_ item: Item) async -> Bool {
        while true {
            enum Step {
                case done(Bool)
                case wait
            }
            let (step, victims): (Step, [any BudgetHolder]) = state.withLock { state in
                if state.ended { return (.done(false), []) }
                if state.closeQueued {
                    state.discardedAfterClose += 1
                    return (.done(true), [])
                }
                guard state.bytes < byteLimit else { return (.wait, []) }
                return (.done(true), append(item, to: &state))
            }
            // Outside the lock: a victim's reset ends its queues, this one among them perhaps.
            budget.drop(victims)
            switch step {
            case .done(let result): return result
            case .wait:
                let room = await withTaskCancellationHandler {
                    await withCheckedContinuation { continuation in
                        let now: Bool? = state.withLock { state in
                            if state.ended { return false }
                            if state.bytes < byteLimit { return true }
                            state.pusher = continuation
                            return nil
                        }
                        if let now { continuation.resume(returning: now) }
                    }
                } onCancel: {
                    end()
                }
                if !room { return false }
            }
        }
    }

    /// Queues a control frame at once, past the limit (a close the proxy sends of its own, at
    /// most 125 bytes): false when the connection is over or a close is queued already.
    @discardableResult
    func pushNow(_ item: Item) -> Bool {
        let (queued, victims): (Bool, [any BudgetHolder]) = state.withLock { state in
            if state.ended || state.closeQueued { return (false, []) }
            return (true, append(item, to: &state))
        }
        budget.drop(victims)
        return queued
    }

    /// True once a close frame is queued this way.
    var closeQueued: Bool { state.withLock { $0.closeQueued } }

    /// Hands the item to a waiting writer or queues it; returns the connections the budget
    /// now drops (the caller drops them once the lock is released).
    private func append(_ item: Item, to state: inout State) -> [any BudgetHolder] {
        if item.opcode == .close { state.closeQueued = true }
        if let writer = state.writer.take() {
            writer.resume(returning: item)
            return []
        }
        state.items.append(item)
        state.bytes += item.payload.count
        return budget.adjust(owner, outgoing: item.payload.count)
    }

    /// The reader is done: what is queued still goes out.
    func finish() {
        let writer = state.withLock { state in
            state.finished = true
            return state.items.isEmpty ? state.writer.take() : nil
        }
        writer?.resume(returning: nil)
    }

    /// The connection is over: queued frames are dropped and both tasks wake.
    func end() {
        let (writer, pusher) = state.withLock { state in
            state.ended = true
            state.items = []
            state.head = 0
            _ = budget.adjust(owner, outgoing: -state.bytes)
            state.bytes = 0
            return (state.writer.take(), state.pusher.take())
        }
        writer?.resume(returning: nil)
        pusher?.resume(returning: false)
    }

    /// The next frame, waiting for one; nil once the reader finished and all went out, or the
    /// connection is over.
    func next() async -> Item? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let (now, pusher): (Item??, CheckedContinuation<Bool, Never>?) = state.withLock { state in
                    if state.ended { return (.some(nil), nil) }
                    if state.head < state.items.count {
                        let item = state.items[state.head]
                        state.head += 1
                        state.bytes -= item.payload.count
                        _ = budget.adjust(owner, outgoing: -item.payload.count)
                        if state.head == state.items.count {
                            state.items.removeAll(keepingCapacity: true)
                            state.head = 0
                        }
                        return (.some(item), state.bytes < byteLimit ? state.pusher.take() : nil)
                    }
                    if state.finished { return (.some(nil), nil) }
                    state.writer = continuation
                    return (nil, nil)
                }
                pusher?.resume(returning: true)
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            end()
        }
    }
}
