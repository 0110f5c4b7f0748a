package import LiveConnection

package import typealias LiveConnection.Mutex

/// The listening socket of a ``WebSocketServer`` or a ``WebSocketProxy``, and the refuse
/// fault on it: refusing closes the socket (clients get ECONNREFUSED from the kernel) and
/// shuts the gate the accept loop waits at; accepting again binds the same port anew.
package final class Listening: Sendable {
    let host: String
    /// The bound port (the system's pick when 0 was asked).
    package let port: UInt16
    private struct State {
        var listener: TCPListener?
        var refusing = false
    }
    private let state: Mutex<State>
    /// Shut while connections are refused (the accept loop waits at it).
    private let gate = Gate()

    /// Binds `host:port`; throws if the address is not a literal or the port is taken.
    package init(host: String, port: UInt16) throws(TransportError) {
        let listener = try TCPListener(host: host, port: port)
        self.host = host
        self.port = listener.port
        state = Mutex(State(listener: listener))
    }

    /// Waits while connections are refused; throws when the task is cancelled.
    func pass() async throws(CancellationError) { try await gate.pass() }

    /// The listening socket now (nil while refusing).
    var listener: TCPListener? { state.withLock { $0.listener } }

    /// Whether a failed accept is the refusal's closed socket, not an error.
    var isRefusing: Bool { state.withLock { $0.refusing } }

    /// Closes the listening socket: later connection attempts are refused by the kernel.
    package func refuse() {
        let listener: TCPListener? = state.withLock { state in
            state.refusing = true
            return state.listener.take()
        }
        gate.shut()
        // Wakes the accept loop's wait; the descriptor closes when its last user lets go.
        if let listener { posixShutdown(listener.descriptor) }
    }

    /// Binds the same port again after ``refuse()``; false when it was not refusing.
    /// Throws if the port cannot be re-bound.
    package func reopen() throws(TransportError) -> Bool {
        guard isRefusing else { return false }
        let listener = try TCPListener(host: host, port: port)
        state.withLock { state in
            state.listener = listener
            state.refusing = false
        }
        gate.open()
        return true
    }
}
