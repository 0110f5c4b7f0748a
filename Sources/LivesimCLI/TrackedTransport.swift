import LiveConnection

import typealias LiveConnection.Mutex

/// The real transport, counting the connections that have not ended yet, so `connect` can
/// wait for its close handshake to finish before the process exits (exiting as soon as the
/// manager says "stopped" could cut the close frame off).
struct TrackedTransport: Transport {
    let inner: any Transport
    let live = Counter()

    func connect(to endpoint: Endpoint) async throws(TransportError) -> any TransportConnection {
        track(try await inner.connect(to: endpoint))
    }

    func connect(to endpoint: Endpoint, generation: Generation) async throws(TransportError) -> any TransportConnection
    {
        track(try await inner.connect(to: endpoint, generation: generation))
    }

    private func track(_ connection: any TransportConnection) -> any TransportConnection {
        live.add(1)
        return Tracked(inner: connection, counter: live)
    }

    /// How many connections are open (opened, and neither closed by us nor ended by the peer).
    final class Counter: Sendable {
        private let value = Mutex(0)
        func add(_ delta: Int) { value.withLock { $0 += delta } }
        var current: Int { value.withLock { $0 } }
    }

    private final class Tracked: TransportConnection {
        let inner: any TransportConnection
        let counter: Counter
        private let ended = Mutex(false)

        init(inner: any TransportConnection, counter: Counter) {
            self.inner = inner
            self.counter = counter
        }

        func send(_ message: Message) async throws(TransportError) { try await inner.send(message) }
        func ping(_ number: UInt64) async throws(TransportError) { try await inner.ping(number) }

        func receive() async throws(TransportError) -> TransportEvent {
            do {
                let event = try await inner.receive()
                if case .closed = event { end() }
                return event
            } catch {
                if error != .cancelled { end() }
                throw error
            }
        }

        func close(code: CloseCode, reason: String) async {
            await inner.close(code: code, reason: reason)
            end()
        }

        private func end() {
            let first = ended.withLock { ended in
                defer { ended = true }
                return !ended
            }
            if first { counter.add(-1) }
        }
    }
}
