import LiveConnection

/// The accept loop a ``WebSocketServer`` and a ``WebSocketProxy`` share: waits while
/// listening is shut (the refuse fault), accepts, admits, serves each connection in its
/// own child task, and on cancellation resets every connection and awaits them all.
///
/// ```swift
/// await AcceptLoop.run(
///     listening: listening, acceptFailed: { … },
///     admit: admit, serve: { await self.serve($0) }, stop: { … })
/// ```
package enum AcceptLoop {
    /// - Parameters:
    ///   - listening: the listening socket, and whether connections are refused.
    ///   - acceptFailed: counts an accept that failed for a reason of the system's (EMFILE and
    ///     friends); the loop then waits 50 ms, leaving the connection queued.
    ///   - admit: registers a connection, or answers it (503) and returns nil.
    ///   - serve: one connection's life, in a child task.
    ///   - stop: after cancellation, before the children are awaited: reset what is open.
    package static func run<Connection: Sendable>(
        listening: Listening,
        acceptFailed: () -> Void,
        admit: (TCPSocket) -> Connection?,
        serve: @escaping @Sendable (Connection) async -> Void,
        stop: () -> Void
    ) async {
        await withDiscardingTaskGroup { group in
            while !Task.isCancelled {
                do {
                    try await listening.pass()
                } catch {
                    break
                }
                guard let listener = listening.listener else { continue }
                let socket: TCPSocket
                do throws(TransportError) {
                    socket = try await listener.accept()
                } catch {
                    if error == .cancelled { break }
                    if listening.isRefusing { continue }
                    // A shut-down listener (refuseConnections) fails here too and is replaced.
                    acceptFailed()
                    _ = await IOReactor.shared.wait(for: .readable, on: -1, until: .now + .milliseconds(50))
                    continue
                }
                guard let connection = admit(socket) else { continue }
                group.addTask { await serve(connection) }
            }
            stop()
        }
    }

    /// Answers a connection that finds every place taken with 503 (over plain TCP: a TLS
    /// client would read it as a broken handshake) and drops it. Best effort and
    /// non-blocking: a full server must not wait on the client it turns away.
    package static func turnAway(_ socket: TCPSocket, plaintext: Bool) {
        if plaintext { _ = socket.trySend(UpgradeRefusal(status: 503, reason: "too many connections").response[...]) }
        socket.shutdown()
    }
}
