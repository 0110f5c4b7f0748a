/// One subscriber's events from ``ConnectionManager/events()``: the phase now, then every
/// event after it, in order, until the manager stops running.
///
/// ```swift
/// for await event in await manager.events() {
///     if case .phase(let phase) = event { status = phase }
/// }
/// ```
///
/// Read it from one task at a time, as an `AsyncStream`. Cancelling the reading task ends
/// it; so does dropping it (and every iterator made from it): either way the manager stops
/// queueing events for it. Events queue without bound while nobody reads.
///
/// Why not an `AsyncStream`: every event of every subscriber went through one, and its
/// storage is generic code the compiler cannot specialize, so each event looked up type
/// metadata at run time (docs/benchmarks.md); this type is the manager's own `Mailbox`.
public struct ConnectionEvents: AsyncSequence, Sendable {
    public typealias Element = ConnectionEvent
    public typealias Failure = Never

    let subscription: EventSubscription

    public func makeAsyncIterator() -> Iterator { Iterator(subscription: subscription) }

    /// Reads the events one at a time.
    public struct Iterator: AsyncIteratorProtocol {
        public typealias Element = ConnectionEvent
        public typealias Failure = Never

        let subscription: EventSubscription

        /// The next event, or `nil` once the manager stopped running (after its last phase)
        /// or the reading task was cancelled.
        public mutating func next() async -> ConnectionEvent? { await subscription.mailbox.next() }
    }
}

/// A subscriber's mailbox, which leaves the broadcaster's list when the last reference to it
/// goes (the stream and its iterators dropped). A cancelled reader's mailbox stays listed
/// until then, but drops every event posted to it.
final class EventSubscription: Sendable {
    let mailbox: Mailbox<ConnectionEvent>
    private let leave: @Sendable () -> Void

    init(mailbox: Mailbox<ConnectionEvent>, leave: @escaping @Sendable () -> Void) {
        self.mailbox = mailbox
        self.leave = leave
    }

    deinit { leave() }
}
