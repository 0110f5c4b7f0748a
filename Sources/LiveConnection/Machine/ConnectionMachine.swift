/// The pure connection machine: inputs in, effects out, no I/O, no time, no threads.
///
/// ```swift
/// var machine = ConnectionMachine(configuration: ConnectionConfiguration())
/// var random = Xoshiro256StarStar(seed: 7)
/// machine.handle(.connect(endpoint), using: &random)   // → open g1, start connect-timeout(g1)
/// machine.handle(.opened(1), using: &random)           // → subscribe …, start heartbeat, phase open
/// machine.handle(.failed(1, .reset(errno: "ECONNRESET")), using: &random)
///                                                      // → close g1, phase waiting "error ECONNRESET"
/// ```
///
/// Every decision of the manager lives here (the sans-IO shape of swift-nio's state
/// machines): which phase, when to ping, how long to back off, whether a close code is
/// terminal, which generation an input belongs to. The shell (``ConnectionManager``) only
/// turns effects into I/O. Because a machine is a `Hashable` value, the model checker can
/// explore every reachable state, and the simulator can snapshot it.
///
/// "Wanted", "foreground", "path viable" and "connected" are separate facts: ``wanted`` is
/// the user's intent, ``foreground`` the app's lifecycle, ``pathViable`` what the app last
/// reported of the network path, and the ``state`` says whether a socket exists.
/// Backgrounding closes the socket without forgetting that the user wants it; losing the
/// path stops attempts without counting failures.
public struct ConnectionMachine: Hashable, Sendable {
    /// Where the machine is; the connection-scoped cases carry the live generation.
    public enum State: Hashable, Sendable {
        /// Never asked to connect.
        case idle
        /// Waiting for generation `g`'s handshake.
        case connecting(Generation)
        /// Generation `g`'s handshake completed; its subscriptions are being written.
        /// Reported as connecting until the transport took them all: `flushesPending`
        /// counts the flushes asked of `g` and not yet answered (``Input/flushed(_:)``), so
        /// a topic subscribed mid-resubscription counts too. Leaving the state drops the count.
        case subscribing(Generation, flushesPending: Int)
        /// Generation `g` is open: the attempt that opened it, whether a ping is unanswered,
        /// and the commands and app pings in flight on it (``OpenConnection``).
        case open(Generation, OpenConnection)
        /// Waiting for the retry timer; `close` is the server's close frame, if one ended the
        /// last connection.
        case waiting(reason: String, close: CloseFrame? = nil)
        /// Waiting for the credentials provider (after 4001 or HTTP 401); `close` as for waiting.
        case refreshing(reason: String, close: CloseFrame? = nil)
        /// Wanted, but in the background: no socket.
        case backgrounded
        /// Wanted and in the foreground, but the app reported the network path unviable: no
        /// socket, no timer, no attempt until it reports the path viable again.
        case offline
        /// Not wanted (disconnected) or given up (terminal close code, attempt limit); `close`
        /// is the server's close frame, if one ended it.
        case stopped(reason: String, close: CloseFrame? = nil)
    }

    public let configuration: ConnectionConfiguration
    public internal(set) var state: State = .idle
    /// The user called `connect(to:)` and has not called `disconnect()` since.
    public internal(set) var wanted = false
    /// The app is in the foreground.
    public internal(set) var foreground = true
    /// The network path can carry a connection, as the app last reported it (its path
    /// monitor's word; true until it says otherwise).
    public internal(set) var pathViable = true
    /// The destination: changes only through `connect(to:)`.
    public internal(set) var endpoint: Endpoint?
    /// The last generation minted (the live one while connecting or open).
    public internal(set) var generation: Generation = 0
    /// Consecutive failed attempts since a connection last proved itself (answered a heartbeat).
    public internal(set) var failures = 0
    /// The last backoff delay drawn (decorrelated jitter remembers it).
    public internal(set) var lastDelay: Duration?
    /// Subscribed topics, in the order the user subscribed them.
    public internal(set) var topics: [String] = []
    /// A connection has been open at least once: from then on every new connection resumes.
    public internal(set) var hasBeenOpen = false
    /// The last resume sequence number delivered to the app.
    public internal(set) var lastSequence: UInt64?
    /// A `refreshCredentials` effect was emitted and its `credentialsRefreshed` has not
    /// arrived: the provider is never asked twice at once. A fact beside the state, not in
    /// it: the provider's answer outlives whatever state asked for it.
    public internal(set) var refreshInFlight = false

    public init(configuration: ConnectionConfiguration = ConnectionConfiguration()) {
        self.configuration = configuration
    }

    /// The generation whose callbacks are live: only while connecting or open.
    public var liveGeneration: Generation? {
        switch state {
        case .connecting(let g), .subscribing(let g, _), .open(let g, _): g
        case .idle, .waiting, .refreshing, .backgrounded, .offline, .stopped: nil
        }
    }

    /// The generation whose socket is open (resubscribing or open).
    public var connectedGeneration: Generation? {
        switch state {
        case .subscribing(let g, _), .open(let g, _): g
        case .idle, .connecting, .waiting, .refreshing, .backgrounded, .offline, .stopped: nil
        }
    }

    /// Flushes of the resubscribing connection not yet answered (0 in every other state).
    public var flushesPending: Int {
        switch state {
        case .subscribing(_, let pending): pending
        case .idle, .connecting, .open, .waiting, .refreshing, .backgrounded, .offline, .stopped: 0
        }
    }

    /// Commands on the open connection whose send has not completed (none in any other state).
    public var commandsInFlight: [CommandID] {
        switch state {
        case .open(_, let connection): connection.commandsInFlight
        case .idle, .connecting, .subscribing, .waiting, .refreshing, .backgrounded, .offline, .stopped: []
        }
    }

    /// The app's pings on the open connection not yet answered (none in any other state).
    public var pingsInFlight: [PingID] {
        switch state {
        case .open(_, let connection): connection.pingsInFlight
        case .idle, .connecting, .subscribing, .waiting, .refreshing, .backgrounded, .offline, .stopped: []
        }
    }

    /// The phase the app sees.
    public var phase: Phase {
        switch state {
        case .idle: .idle
        case .connecting, .subscribing: .connecting(attempt: failures + 1)
        case .open(_, let connection): .open(attempt: connection.attempt)
        case .waiting(let reason, let close), .refreshing(let reason, let close):
            .waiting(reason: reason, delay: lastDelay ?? .zero, close: close)
        case .backgrounded: .backgrounded
        case .offline: .offline
        case .stopped(let reason, let close): .stopped(reason: reason, close: close)
        }
    }

    /// Handles one input and returns what the shell must do, in order.
    ///
    /// `random` is drawn from only when a backoff delay is chosen.
    @discardableResult
    public mutating func handle(_ input: Input, using random: inout some RandomSource) -> [Effect] {
        if let g = input.generation, g > generation {
            preconditionFailure("input \(input) names \(g), which was never minted (state \(state))")
        }
        switch input {
        case .connect(let endpoint): return connect(to: endpoint)
        case .disconnect(let code, let reason): return disconnect(code: code, reason: reason)
        case .setForeground(let value): return setForeground(value)
        case .setPathViable(let value): return setPathViable(value)
        case .subscribe(let topic): return subscribe(topic)
        case .unsubscribe(let topic): return unsubscribe(topic)
        case .send(let id): return send(id)
        case .ping(let id, let timeout): return ping(id, timeout: timeout)
        case .opened(let g): return opened(g)
        case .connectFailed(let g, let error): return connectFailed(g, error, using: &random)
        case .received(let g, let message, let sequence): return received(g, message, sequence: sequence)
        case .pong(let g): return pong(g)
        case .closedByPeer(let g, let code, let reason): return closedByPeer(g, code, reason, using: &random)
        case .failed(let g, let error): return failed(g, error, using: &random)
        case .sendCompleted(let g, let id): return sendCompleted(g, id)
        case .pingAnswered(let g, let id): return pingAnswered(g, id)
        case .flushed(let g): return flushed(g)
        case .timerFired(let timer): return timerFired(timer, using: &random)
        case .credentialsRefreshed(let succeeded): return credentialsRefreshed(succeeded, using: &random)
        }
    }
}
