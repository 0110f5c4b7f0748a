public import LiveConnection
import LiveServerContract
public import WebSocketTransport

public import typealias LiveConnection.Mutex

/// The live contract on real sockets: the same ``LiveContract`` value the simulated server
/// runs, behind a ``WebSocketServer`` with every fault control.
///
/// ```swift
/// let live = try LiveTestServer(configuration: .init(port: 0))
/// try await withThrowingTaskGroup(of: Void.self) { group in
///     group.addTask { await live.run() }
///     // a manager connects to ws://127.0.0.1:\(live.port)/live and subscribes "loans"
///     live.broadcast(topic: "loans", text: "hello")   // {"seq":1,"topic":"loans","text":"hello"}
///     live.restart()                                  // connections reset, subscriptions forgotten, log kept
///     group.cancelAll()
/// }
/// ```
///
/// Connections are numbered from 1 in the order their handshakes complete, as the
/// simulated network numbers its links. A reply (a resume's replay) is queued on the
/// connection while the contract is locked, and so is every broadcast: a message
/// published during a replay reaches the client after the replayed ones.
public final class LiveTestServer: Sendable {
    /// The socket-level server: its fault controls (freeze, refuse, latency, …) are this server's.
    public let server: WebSocketServer
    let live: LiveHandler

    /// Binds the server.
    /// - Parameters:
    ///   - configuration: the socket server's address, limits and TLS identity.
    ///   - logCapacity: messages the replay log keeps.
    ///   - observer: hears the wire and every fault (a ``WireHistoryRecorder``); nil by default.
    public init(
        configuration: WebSocketServer.Configuration, logCapacity: Int = 1_000,
        observer: (any ServerWireObserver)? = nil
    ) throws(TransportError) {
        let live = LiveHandler(logCapacity: logCapacity)
        self.live = live
        self.server = try WebSocketServer(configuration: configuration, handler: live, observer: observer)
    }

    public var port: UInt16 { server.port }

    /// Serves until cancelled.
    public func run() async { await server.run() }

    /// Logs a sequence-numbered message and queues it to every connection subscribed to `topic`; returns its number.
    @discardableResult
    public func broadcast(topic: String, text: String) -> UInt64 { live.broadcast(topic: topic, text: text) }

    /// Restart: every connection (and every handshake in progress) reset, frozen and hung
    /// states lifted, subscriptions forgotten, the log kept — as the simulated network's restart.
    public func restart() {
        server.note(.restart)
        server.thaw()
        server.hangHandshakes(false)
        live.restart()
        server.resetAll(includingHandshakes: true)
    }

    /// "connection:topic" for every subscribe frame, in arrival order (seed 000's log).
    public var subscriptionLog: [String] { live.contract { Array($0.subscriptionLog) } }

    /// Contract frames refused as unreadable, each answered with an error frame.
    public var refusedFrames: Int { live.contract { $0.refusedFrames } }

    /// The topics a connection is subscribed to now.
    public func topics(of connection: Int) -> [String] { live.contract { $0.topics(of: connection) } }

    /// The last sequence number assigned.
    public var lastSequence: UInt64 { live.contract { $0.lastSequence } }

    /// Connections whose handshake completed, in order (numbered from 1).
    public var connectionCount: Int { live.connectionCount }
}

/// The ``WebSocketServerHandler`` that feeds client frames to the contract and queues its replies.
final class LiveHandler: WebSocketServerHandler {
    private struct State {
        var contract: LiveContract
        /// Contract number → connection, for the connections open now.
        var open: [Int: ServerConnection] = [:]
        /// Server connection id → contract number.
        var numbers: [UInt64: Int] = [:]
        var opened = 0
    }

    private let state: Mutex<State>

    init(logCapacity: Int) {
        state = Mutex(State(contract: LiveContract(logCapacity: logCapacity)))
    }

    func contract<T>(_ body: (LiveContract) -> T) -> T { state.withLock { body($0.contract) } }

    var connectionCount: Int { state.withLock { $0.opened } }

    func opened(_ connection: ServerConnection) async {
        state.withLock { state in
            state.opened += 1
            state.open[state.opened] = connection
            state.numbers[connection.id] = state.opened
        }
    }

    func received(_ message: Message, on connection: ServerConnection) async {
        state.withLock { state in
            guard let number = state.numbers[connection.id] else { return }
            switch state.contract.handle(message, from: number) {
            case .none: break
            case .replay(let entries): for entry in entries { connection.send(entry.message) }
            case .refuse(let reason): connection.send(LiveContract.errorFrame(reason))
            }
        }
    }

    func closed(_ connection: ServerConnection) async {
        state.withLock { state in
            guard let number = state.numbers.removeValue(forKey: connection.id) else { return }
            state.open[number] = nil
            state.contract.drop(number)
        }
    }

    func broadcast(topic: String, text: String) -> UInt64 {
        state.withLock { state in
            let entry = state.contract.append(topic: topic, text: text)
            for number in state.contract.recipients(of: entry) { state.open[number]?.send(entry.message) }
            return entry.sequence
        }
    }

    func restart() {
        state.withLock { state in
            state.contract.restart()
        }
    }
}
