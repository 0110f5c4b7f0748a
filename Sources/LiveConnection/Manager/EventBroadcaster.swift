import Synchronization

/// Fans the manager's events out to every subscriber, in subscription order.
///
/// ```swift
/// let events = broadcaster.subscribe(startingWith: .phase(.idle))
/// broadcaster.broadcast(.phase(.open))
/// ```
///
/// Lives outside the actor behind a lock so that a subscription that goes away can
/// unsubscribe synchronously (an actor hop would need an unstructured task).
final class EventBroadcaster: Sendable {
    private struct Subscribers {
        var nextID = 0
        var finished = false
        var list: [(id: Int, mailbox: Mailbox<ConnectionEvent>)] = []
    }

    private let subscribers = Mutex(Subscribers())

    /// A new subscriber's events, the first of them `first` (the current phase).
    func subscribe(startingWith first: ConnectionEvent) -> ConnectionEvents {
        let mailbox = Mailbox<ConnectionEvent>()
        let id: Int? = subscribers.withLock { subscribers in
            guard !subscribers.finished else { return nil }
            defer { subscribers.nextID += 1 }
            subscribers.list.append((subscribers.nextID, mailbox))
            return subscribers.nextID
        }
        mailbox.post(first)
        guard let id else {
            // The manager stopped running: the phase, then the end.
            mailbox.finish()
            return ConnectionEvents(subscription: EventSubscription(mailbox: mailbox, leave: {}))
        }
        let subscription = EventSubscription(mailbox: mailbox) { [weak self] in
            self?.subscribers.withLock { $0.list.removeAll { $0.id == id } }
        }
        return ConnectionEvents(subscription: subscription)
    }

    func broadcast(_ event: ConnectionEvent) {
        let mailboxes = subscribers.withLock { $0.list.map(\.mailbox) }
        for mailbox in mailboxes { mailbox.post(event) }
    }

    /// Ends every subscriber's events (the manager stopped running).
    func finish() {
        let mailboxes = subscribers.withLock { subscribers in
            defer {
                subscribers.list = []
                subscribers.finished = true
            }
            return subscribers.list.map(\.mailbox)
        }
        for mailbox in mailboxes { mailbox.finish() }
    }
}
