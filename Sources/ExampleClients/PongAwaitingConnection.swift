import LiveConnection

import typealias LiveConnection.Mutex

/// A connection whose ``ping()`` waits for its pong, the way the apps these clients copy
/// ping (a platform socket's "send ping, call me with the pong").
///
/// ```swift
/// let connection = PongAwaitingConnection(try await transport.connect(to: endpoint))
/// try await connection.ping()   // returns once a receive() read the pong; no deadline
/// ```
///
/// The seam's ping returns once written and its pong comes through `receive()`; the copied
/// clients were written against a ping that waits, flaws included (a silent peer parks the
/// pinging task forever, a failure while waiting reaches the ping's error handler). This keeps
/// that behaviour, so the victims stay the victims their traces show: ``receive()`` answers
/// the waiting pings from the pongs it reads (never returning one) and fails them when the
/// connection ends; as before, a pong is only seen while some task receives.
final class PongAwaitingConnection: TransportConnection {
    private enum Slot {
        /// Written, no pong yet; the continuation is set once ``ping()`` is suspended.
        case waiting(CheckedContinuation<Result<Void, TransportError>, Never>?)
        /// Settled before ``ping()`` suspended.
        case settled(Result<Void, TransportError>)
    }

    private struct State {
        var nextPing: UInt64 = 0
        var pings: [(number: UInt64, slot: Slot)] = []
        /// Why the connection ended, for pings written after it.
        var ending: TransportError?
    }

    let inner: any TransportConnection
    private let state = Mutex(State())

    init(_ inner: any TransportConnection) { self.inner = inner }

    var handshake: Handshake { inner.handshake }

    func send(_ message: Message) async throws(TransportError) { try await inner.send(message) }

    func ping(_ number: UInt64) async throws(TransportError) { try await inner.ping(number) }

    /// Sends a ping and returns when its pong (or a later one) was read, or throws when the
    /// connection ended, the write failed or the task was cancelled.
    func ping() async throws(TransportError) {
        let number: UInt64 = state.withLock { state in
            state.nextPing += 1
            state.pings.append((state.nextPing, .waiting(nil)))
            return state.nextPing
        }
        do {
            try await inner.ping(number)
        } catch {
            state.withLock { $0.pings.removeAll { $0.number == number } }
            throw error
        }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Void, TransportError>, Never>) in
                let settled: Result<Void, TransportError>? = state.withLock { state in
                    guard let index = state.pings.firstIndex(where: { $0.number == number }) else {
                        return .failure(state.ending ?? .cancelled)
                    }
                    if case .settled(let result) = state.pings[index].slot {
                        state.pings.remove(at: index)
                        return result
                    }
                    if let ending = state.ending {
                        state.pings.remove(at: index)
                        return .failure(ending)
                    }
                    state.pings[index].slot = .waiting(continuation)
                    return nil
                }
                if let settled { continuation.resume(returning: settled) }
            }
        } onCancel: {
            settle(where: { $0 == number }, with: .failure(.cancelled))
        }
        try result.get()
    }

    /// The next message or close; pongs answer the waiting pings and are not returned.
    func receive() async throws(TransportError) -> TransportEvent {
        while true {
            let event: TransportEvent
            do {
                event = try await inner.receive()
            } catch {
                if error != .cancelled { end(error) }
                throw error
            }
            switch event {
            case .pong(let number): settle(where: { $0 <= number }, with: .success(()))
            case .message: return event
            case .closed:
                end(.notConnected)
                return event
            }
        }
    }

    func close(code: CloseCode, reason: String) async {
        await inner.close(code: code, reason: reason)
    }

    private func end(_ error: TransportError) {
        state.withLock { $0.ending = $0.ending ?? error }
        settle(where: { _ in true }, with: .failure(error))
    }

    /// Settles the pings whose numbers match: resumes those waiting, marks the others.
    private func settle(where matches: (UInt64) -> Bool, with result: Result<Void, TransportError>) {
        let resumed: [CheckedContinuation<Result<Void, TransportError>, Never>] = state.withLock { state in
            var resumed: [CheckedContinuation<Result<Void, TransportError>, Never>] = []
            var kept: [(number: UInt64, slot: Slot)] = []
            for entry in state.pings {
                guard matches(entry.number) else {
                    kept.append(entry)
                    continue
                }
                switch entry.slot {
                case .waiting(let continuation?): resumed.append(continuation)
                case .waiting(nil): kept.append((entry.number, .settled(result)))
                case .settled: kept.append(entry)
                }
            }
            state.pings = kept
            return resumed
        }
        for continuation in resumed { continuation.resume(returning: result) }
    }
}
