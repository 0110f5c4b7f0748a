import Synchronization

/// Fans the manager's events out to every subscriber, in subscription order.
///
/// ```swift
/// let stream = broadcaster.subscribe(startingWith: .phase(.idle))
/// broadcaster.broadcast(.phase(.open))
/// ```
///
/// Lives outside the actor behind a lock so that a stream's termination handler can
/// unsubscribe synchronously (an actor hop would need an unstructured task).
final class EventBroadcaster: Sendable {
    private struct Subscribers {
        var nextID = 0
        var finished = false
        var list: [(id: Int, continuation: AsyncStream<ConnectionEvent>.Continuation)] = []
    }

    private let subscribers = Mutex(Subscribers())

    /// A new stream whose first element is `first` (the current phase).
    func subscribe(startingWith first: ConnectionEvent) -> AsyncStream<ConnectionEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: ConnectionEvent.self)
        let id: Int? = subscribers.withLock { subscribers in
            guard !subscribers.finished else { return nil }
            defer { subscribers.nextID += 1 }
            subscribers.list.append((subscribers.nextID, continuation))
            return subscribers.nextID
        }
        continuation.yield(first)
        guard let id else {
            // The manager stopped running: the phase, then the end.
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            self?.subscribers.withLock { $0.list.removeAll { $0.id == id } }
        }
        return stream
    }

    func broadcast(_ event: ConnectionEvent) {
        let continuations = subscribers.withLock { $0.list.map(\.continuation) }
        for continuation in continuations { continuation.yield(event) }
    }

    /// Ends every stream (the manager stopped running).
    func finish() {
        let continuations = subscribers.withLock { subscribers in
            defer {
                subscribers.list = []
                subscribers.finished = true
            }
            return subscribers.list.map(\.continuation)
        }
        for continuation in continuations { continuation.finish() }
    }
}
