import typealias LiveConnection.Mutex

/// One deadline for every wait on a peer in a long exchange, watched by one sleeper.
///
/// ```swift
/// let deadline = PeerDeadline(limit: .seconds(30))
/// let outcome = try await deadline.watching {
///     while true {
///         let event = try await deadline.wait("no frame from the server") { try await connection.receive() }
///         …
///     }
/// }
/// // .finished(value), or .expired("no frame from the server")
/// ```
///
/// A deadline per wait (a task group racing the wait against a sleep) leaves the cancelled
/// sleep's timer behind until it would have fired: about 1.5 KB per message, 459 MB after
/// 300,000 small messages at a 60 s limit. Here each wait only notes when it began and ended,
/// and one watcher sleeps until the current wait's limit, re-arming when the wait it slept
/// for has ended; it sleeps about once per limit, however many messages pass.
final class PeerDeadline: Sendable {
    enum Outcome<T: Sendable>: Sendable {
        case finished(T)
        /// A wait outlived the limit: the reason it was given.
        case expired(String)
    }

    private struct Wait {
        var since: ContinuousClock.Instant
        var number: UInt64
        var reason: String
    }

    private struct State {
        var current: Wait?
        var started: UInt64 = 0
    }

    let limit: Duration
    private let state = Mutex(State())

    init(limit: Duration) { self.limit = limit }

    /// Runs `work` (a wait on the peer) under the deadline, described by `reason` if it expires.
    func wait<T>(_ reason: String, _ work: () async throws -> T) async rethrows -> T {
        state.withLock { state in
            state.started += 1
            state.current = Wait(since: .now, number: state.started, reason: reason)
        }
        defer { state.withLock { $0.current = nil } }
        return try await work()
    }

    /// Runs `body` while the watcher runs: the body's value, or `.expired` (and the body
    /// cancelled, which the transport's waits honour) once a wait outlives the limit.
    func watching<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> Outcome<T> {
        try await withThrowingTaskGroup(of: Outcome<T>?.self) { group in
            group.addTask { .finished(try await body()) }
            group.addTask { try await self.watch().map { .expired($0) } }
            defer { group.cancelAll() }
            while let outcome = try await group.next() {
                if let outcome { return outcome }
            }
            preconditionFailure("the body's task returns an outcome")
        }
    }

    /// Sleeps until the wait under way (or, with none, one limit from now) would expire;
    /// returns the reason of a wait that did.
    private func watch() async throws -> String? {
        let clock = ContinuousClock()
        while true {
            let watched = state.withLock { $0.current }
            try await clock.sleep(until: (watched?.since ?? clock.now) + limit)
            let expired: String? = state.withLock { state in
                guard let watched, let current = state.current, current.number == watched.number else { return nil }
                return current.reason
            }
            if let expired { return expired }
        }
    }
}
