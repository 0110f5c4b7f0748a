public import LiveConnection
public import SimulationKernel

/// One thing the simulated server (or the wire between it and a client) saw, at its
/// virtual instant: what a judge that cannot read the client's code has to go on.
///
/// ```swift
/// let network = SimulatedNetwork(clock: clock, recordsWire: true)
/// // … run a client against it …
/// for event in network.wireEvents(from: 0) { print(event) }
/// // "0ms attempt 1 ws://server-0.sim/live?client=0", "0ms opened 1 socket 1", "0ms sent 1 {…}"
/// ```
///
/// Recorded only when the network was made with `recordsWire: true` (the wire-level
/// oracles need it; the manager's own invariants do not, and skip the cost).
public struct WireEvent: Hashable, Sendable, CustomStringConvertible {
    public enum Kind: Hashable, Sendable {
        /// A connection attempt left the client, for this URL (numbered from 1).
        case attempt(Int, url: String)
        /// The attempt failed before a socket was open: refused, a handshake status, a
        /// reset, or the client abandoned it (its connect was cancelled).
        case attemptFailed(Int, reason: String)
        /// The attempt's handshake completed: the client holds socket `socket`.
        case opened(Int, socket: Int)
        /// The client wrote a data frame on the socket.
        case sent(socket: Int, text: String)
        /// The client pinged on the socket.
        case pinged(socket: Int)
        /// The server's pong reached the client: the socket answered a heartbeat (a client
        /// that resets its backoff only then has been proved alive end to end).
        case ponged(socket: Int)
        /// The client closed the socket (or abandoned it).
        case closedByClient(socket: Int)
        /// The server ended the socket: a close frame with this code, or a reset (nil).
        case endedByServer(socket: Int, code: CloseCode?)
        /// A receive, send or ping on the socket told the client that it ended; `code` when
        /// a receive delivered the server's close frame.
        case told(socket: Int, code: CloseCode?)
        /// The device's network path went away (false) or came back (true): the network's
        /// truth, which a judge may read (a client learns it only if its app tells it).
        case path(available: Bool)
    }

    public var at: VirtualClock.Instant
    public var kind: Kind

    /// An event at an instant (a recorded history's reader makes them too).
    public init(at: VirtualClock.Instant, kind: Kind) {
        self.at = at
        self.kind = kind
    }

    public var description: String {
        switch kind {
        case .attempt(let id, let url): "\(at) attempt \(id) \(url)"
        case .attemptFailed(let id, let reason): "\(at) attempt \(id) failed: \(reason)"
        case .opened(let id, let socket): "\(at) attempt \(id) opened socket \(socket)"
        case .sent(let socket, let text): "\(at) socket \(socket) sent \(text)"
        case .pinged(let socket): "\(at) socket \(socket) ping"
        case .ponged(let socket): "\(at) socket \(socket) pong reached the client"
        case .closedByClient(let socket): "\(at) socket \(socket) closed by the client"
        case .endedByServer(let socket, let code):
            "\(at) socket \(socket) ended by the server: \(code.map { "close \($0)" } ?? "reset")"
        case .told(let socket, let code):
            "\(at) socket \(socket): the client learnt it ended\(code.map { " (close \($0) received)" } ?? "")"
        case .path(let available): "\(at) network path \(available ? "back" : "lost")"
        }
    }
}
