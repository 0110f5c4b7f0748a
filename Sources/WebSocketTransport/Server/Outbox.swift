import typealias LiveConnection.Mutex

/// The frames waiting to be written to one connection, in order, with a byte limit.
///
/// ```swift
/// outbox.enqueue(Array("hi".utf8), .data(.text))   // nil, or why it was refused
/// while let item = await outbox.next() { … }        // the writer encodes and writes it
/// ```
///
/// Anyone may enqueue without waiting (a broadcast must not stall on one slow client);
/// the connection's writer task takes items one at a time and makes their frames, so a
/// compressed connection deflates messages in the order they go on the wire. The limit
/// bounds what a client that stops reading can make the server hold: once the queue holds
/// that many payload bytes (before compression) the next data message is refused and the
/// connection is reset. Control frames count too: a pong that would take the queue past the
/// limit is refused (a client that pings and never reads took a server to 3 GB of pongs
/// when they were exempt). Every change is also charged to the server's ``BufferBudget``.
///
/// When nothing is queued and the writer is waiting, whoever sends may take the writer's place
/// for one frame (``claimIdleWriter(_:_:)``, ``ServerConnection/deliver(_:_:)``): an echo then
/// costs no hand-off between threads.
final class Outbox: Sendable {
    /// One frame to write: its payload, not yet encoded (nor compressed), unless it is the
    /// rest of a frame a sender began (``isRestOfFrame``).
    struct Item: Sendable {
        enum Kind: Sendable, Equatable {
            /// A whole message, `.text` or `.binary`.
            case data(Opcode)
            case pong
            /// Our close frame; `final` when nothing is read after it (the peer's close was
            /// already seen, or the connection failed).
            case close(final: Bool)
        }
        var payload: [UInt8]
        var kind: Kind
        var enqueuedAt: ContinuousClock.Instant
        /// The payload is the unsent end of a frame of this kind that a sender began writing
        /// itself (the socket took only part of it): already encoded, compressed and told to
        /// the observer, so the writer writes it as it is. Only ``releaseWriter(handingOver:)``
        /// hands one over; the queue never holds one.
        var isRestOfFrame = false

        var opcode: Opcode {
            switch kind {
            case .data(let opcode): opcode
            case .pong: .pong
            case .close: .close
            }
        }

        var isData: Bool { if case .data = kind { true } else { false } }
    }

    private struct State {
        var items: [Item] = []
        var head = 0
        var bytes = 0
        var ended = false
        var closeQueued = false
        /// The most `bytes` has been: what the limit is judged by in tests.
        var peakBytes = 0
        var waiter: CheckedContinuation<Item?, Never>?
        /// A sender is writing a frame itself in the waiting writer's place: the writer must not
        /// be woken (two writers would interleave bytes) until it is done.
        var writingThrough = false
        /// How a sender may write for the idle writer; set by the writer task, nil before.
        var writeThrough: WriteThrough?
    }

    private let state = Mutex(State())
    let byteLimit: Int
    /// The server-wide tally this queue is charged to, and the connection it is charged for.
    private let budget: BufferBudget?
    private let owner: UInt64

    init(byteLimit: Int, budget: BufferBudget? = nil, owner: UInt64 = 0) {
        self.byteLimit = byteLimit
        self.budget = budget
        self.owner = owner
    }

    /// Bytes queued and not yet taken by the writer.
    var queuedBytes: Int { state.withLock { $0.bytes } }

    /// The most bytes the queue has held at once.
    var peakQueuedBytes: Int { state.withLock { $0.peakBytes } }

    enum Refusal: Equatable {
        /// After our close frame nothing more may be sent (RFC 6455 §5.5.1), or the connection ended.
        case closed
        /// The client is not reading fast enough.
        case overLimit
        /// Queued, but the server went over its buffer budget and this connection, holding
        /// the most, was dropped for it.
        case overBudget
    }

    /// Queues an item; nil when queued.
    @discardableResult
    func enqueue(_ payload: [UInt8], _ kind: Item.Kind) -> Refusal? {
        let item = Item(payload: payload, kind: kind, enqueuedAt: .now)
        let result: (Refusal?, CheckedContinuation<Item?, Never>?, [any BudgetHolder]) = state.withLock { state in
            if state.ended || state.closeQueued { return (.closed, nil, []) }
            switch kind {
            case .data:
                // Refused only once the queue already holds the limit: one message of any allowed
                // size always fits, and the queue never holds more than the limit plus one message.
                guard state.bytes < byteLimit else { return (.overLimit, nil, []) }
            case .pong:
                // At most 125 bytes: refused before it would pass the limit, so a ping flood
                // never takes the queue over it.
                guard state.bytes + payload.count <= byteLimit else { return (.overLimit, nil, []) }
            case .close:
                // One per connection, at most 125 bytes: always queued, so the close handshake can start.
                state.closeQueued = true
            }
            if !state.writingThrough, let waiter = state.waiter.take() { return (nil, waiter, []) }
            state.items.append(item)
            state.bytes += payload.count
            state.peakBytes = max(state.peakBytes, state.bytes)
            return (nil, nil, budget?.adjust(owner, outgoing: payload.count) ?? [])
        }
        result.1?.resume(returning: item)
        budget?.drop(result.2)
        if result.2.contains(where: { $0.id == owner }) { return .overBudget }
        return result.0
    }

    /// True once a close frame was queued (nothing but it goes out afterwards).
    var closeQueued: Bool { state.withLock { $0.closeQueued } }

    /// Ends the outbox: queued items are dropped and the writer's `next()` returns nil.
    func end() {
        let waiter = state.withLock { state in
            state.ended = true
            state.items = []
            state.head = 0
            _ = budget?.adjust(owner, outgoing: -state.bytes)
            state.bytes = 0
            return state.waiter.take()
        }
        waiter?.resume(returning: nil)
    }

    /// The next item, waiting for one; nil once ended or when the task is cancelled.
    func next() async -> Item? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let now: Item?? = state.withLock { state in
                    if let item = takeFirst(&state) { return .some(item) }
                    if state.ended || Task.isCancelled { return .some(nil) }
                    state.waiter = continuation
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiter.take() }
            waiter?.resume(returning: nil)
        }
    }

    /// Removes the first queued item, releasing what it was charged.
    private func takeFirst(_ state: inout State) -> Item? {
        guard state.head < state.items.count else { return nil }
        let item = state.items[state.head]
        state.head += 1
        state.bytes -= item.payload.count
        _ = budget?.adjust(owner, outgoing: -item.payload.count)
        if state.head == state.items.count {
            state.items.removeAll(keepingCapacity: true)
            state.head = 0
        }
        return item
    }

    // MARK: Writing through

    /// Lets senders write for the writer while it waits with nothing queued (the writer task
    /// sets it as it starts: it knows the socket and the deflater).
    func allowWriteThrough(_ writeThrough: WriteThrough) {
        state.withLock { $0.writeThrough = writeThrough }
    }

    /// Takes the idle writer's place for one item, which would be accepted now and handed
    /// straight to it: nothing queued, no other sender writing, the writer waiting. The
    /// caller must end with ``releaseWriter(handingOver:)``; until then items queue behind it.
    /// Nil (nothing claimed) otherwise, and always for a close frame, which the writer sends
    /// (a lingering close and a deadline follow it).
    func claimIdleWriter(_ kind: Item.Kind, _ count: Int) -> WriteThrough? {
        state.withLock { state in
            guard let writeThrough = state.writeThrough, state.waiter != nil, !state.writingThrough,
                state.head == state.items.count, !state.ended, !state.closeQueued
            else { return nil }
            switch kind {
            // The same acceptance as enqueue's, with nothing queued.
            case .data: guard byteLimit > 0 else { return nil }
            case .pong: guard count <= byteLimit else { return nil }
            case .close: return nil
            }
            state.writingThrough = true
            return writeThrough
        }
    }

    /// Gives the writer its place back, with an item to write first: the one the claim was
    /// for (a fault holds it: the writer waits it out), or the rest of its frame. Items queued
    /// meanwhile follow it. Dropped when the outbox ended meanwhile, as queued items are.
    func releaseWriter(handingOver item: Item?) {
        let waiter: (CheckedContinuation<Item?, Never>, Item)? = state.withLock { state in
            precondition(state.writingThrough, "releaseWriter without claimIdleWriter")
            state.writingThrough = false
            // A writer gone (cancelled, or the outbox ended) writes nothing more: keep the queue as it is.
            guard state.waiter != nil, let next = item ?? takeFirst(&state), let waiter = state.waiter.take()
            else { return nil }
            return (waiter, next)
        }
        waiter.map { $0.0.resume(returning: $0.1) }
    }
}
