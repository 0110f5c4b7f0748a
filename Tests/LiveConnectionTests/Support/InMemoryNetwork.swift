import Foundation
import LiveServerContract

import typealias LiveConnection.Mutex

@testable import LiveConnection

/// Seed 000's test server, in memory: records subscriptions per connection, resets,
/// closes with a code, freezes (socket open, no pongs), broadcasts. What a subscribe is,
/// it asks the ``LiveContract`` the simulated and the real server run (any JSON spelling),
/// so a test here and those servers never disagree on which frames subscribe.
///
/// ```swift
/// let server = InMemoryServer()
/// let manager = ConnectionManager(configuration: configuration, transport: server.transport, clock: clock)
/// server.resetAll()
/// #expect(server.subscriptionLog == ["1:availability", "1:loans", "2:availability", "2:loans"])
/// ```
final class InMemoryServer: Sendable {
    private struct State {
        var connections: [InMemoryConnection] = []
        var contract = LiveContract()
        var received: [String] = []
        var messages: [Message] = []
        var closes: [String] = []
        var handshakeStatus: Int?
        var frozen = false
        var holdsPongs = false
        /// Pings held unanswered while ``holdPongs()`` holds: (connection, ping number).
        var heldPings: [(connection: InMemoryConnection, number: UInt64)] = []
        var stallSends = false
        var headers: [[Endpoint.Header]] = []
    }

    private let state = Mutex(State())

    var transport: InMemoryTransport { InMemoryTransport(server: self) }

    /// "connection:topic" for every subscribe, in arrival order (connections count from 1).
    var subscriptionLog: [String] { state.withLock { Array($0.contract.subscriptionLog) } }
    /// Every text frame received, prefixed by its connection number.
    var received: [String] { state.withLock { $0.received } }
    /// "connection:code reason" for every close the client started, in order.
    var clientCloses: [String] { state.withLock { $0.closes } }
    func recordClose(_ code: CloseCode, _ reason: String, from number: Int) {
        state.withLock { $0.closes.append("\(number):\(code) \(reason)") }
    }
    /// Every data message received, text and binary, in arrival order.
    var receivedMessages: [Message] { state.withLock { $0.messages } }
    var connectionCount: Int { state.withLock { $0.connections.count } }
    var openConnections: Int { state.withLock { $0.connections.filter { !$0.isClosed }.count } }

    /// Makes every later handshake fail with this HTTP status (nil: accept).
    func failHandshakes(with status: Int?) { state.withLock { $0.handshakeStatus = status } }

    /// Socket open, nothing flows: pings are never answered.
    func freeze() {
        state.withLock { $0.frozen = true }
    }

    func resetAll() {
        for connection in live() { connection.endFromServer(.failure(.reset(errno: "ECONNRESET"))) }
    }

    func closeAll(code: CloseCode, reason: String = "") {
        for connection in live() { connection.endFromServer(.success(.closed(code: code, reason: reason))) }
    }

    func broadcast(_ text: String) {
        for connection in live() { connection.deliver(.text(text)) }
    }

    var isFrozen: Bool { state.withLock { $0.frozen } }

    /// Pings go unanswered until ``answerLatestPings()`` (a peer slow to answer).
    func holdPongs() { state.withLock { $0.holdsPongs = true } }

    /// The numbers of the pings held unanswered, in order.
    var heldPings: [UInt64] { state.withLock { $0.heldPings.map(\.number) } }

    /// Answers only the latest held ping of each connection, as RFC 6455 §5.5.3 allows, and
    /// stops holding.
    func answerLatestPings() {
        let latest = state.withLock { state in
            defer {
                state.heldPings = []
                state.holdsPongs = false
            }
            var latest: [(connection: InMemoryConnection, number: UInt64)] = []
            for held in state.heldPings {
                latest.removeAll { $0.connection === held.connection }
                latest.append(held)
            }
            return latest
        }
        for (connection, number) in latest { connection.deliverPong(number) }
    }

    /// Sends every live connection a pong carrying `number`, answering whatever it answers.
    func sendPong(_ number: UInt64) {
        for connection in live() { connection.deliverPong(number) }
    }

    /// Whether the ping is answered at once (not frozen, not held).
    func answersPing(_ number: UInt64, on connection: InMemoryConnection) -> Bool {
        state.withLock { state in
            if state.frozen { return false }  // a frozen peer never answers
            guard state.holdsPongs else { return true }
            state.heldPings.append((connection, number))
            return false
        }
    }

    /// The next send never completes until its connection ends (a command stays in flight).
    func stallNextSend() { state.withLock { $0.stallSends = true } }
    /// True once, for the send that must stall.
    func takeStall() -> Bool {
        state.withLock { state in
            defer { state.stallSends = false }
            return state.stallSends
        }
    }

    /// The request headers of every handshake, in order.
    var handshakeHeaders: [[Endpoint.Header]] { state.withLock { $0.headers } }

    private func live() -> [InMemoryConnection] {
        state.withLock { $0.connections.filter { !$0.isClosed } }
    }

    func accept(_ endpoint: Endpoint) throws(TransportError) -> InMemoryConnection {
        try state.withLock { (state) throws(TransportError) -> InMemoryConnection in
            state.headers.append(endpoint.headers)
            if let status = state.handshakeStatus { throw .handshakeRejected(status: status) }
            // The handshake a real server would answer: the first subprotocol offered, and a
            // header naming the connection, so a test can tell which connection's it sees.
            let number = state.connections.count + 1
            let handshake = Handshake(
                subprotocol: endpoint.subprotocols.first, headers: [.init("x-connection", String(number))])
            let connection = InMemoryConnection(number: number, server: self, handshake: handshake)
            state.connections.append(connection)
            return connection
        }
    }

    func record(_ message: Message, from number: Int) {
        state.withLock { state in
            state.messages.append(message)
            // Only the subscription log is read: this server broadcasts to every connection,
            // so the contract's replies (replays of its empty log) are not needed.
            _ = state.contract.handle(message, from: number)
            if case .text(let text) = message { state.received.append("\(number):\(text)") }
        }
    }
}

struct InMemoryTransport: Transport {
    let server: InMemoryServer

    func connect(to endpoint: Endpoint) async throws(TransportError) -> any TransportConnection {
        try server.accept(endpoint)
    }
}

final class InMemoryConnection: TransportConnection {
    let number: Int
    private let server: InMemoryServer
    private let inbox = Mailbox<Result<TransportEvent, TransportError>>()
    private let stalled = Mailbox<Void>()
    private let closed = Mutex(false)
    /// How the connection ended: a write after a reset fails the way the reset did.
    private let ending = Mutex<TransportError?>(nil)

    let handshake: Handshake

    init(number: Int, server: InMemoryServer, handshake: Handshake = Handshake()) {
        self.number = number
        self.server = server
        self.handshake = handshake
    }

    var isClosed: Bool { closed.withLock { $0 } }

    func deliver(_ message: Message) { inbox.post(.success(.message(message))) }

    func deliverPong(_ number: UInt64) { inbox.post(.success(.pong(number))) }

    func endFromServer(_ ending: Result<TransportEvent, TransportError>) {
        closed.withLock { $0 = true }
        if case .failure(let error) = ending { self.ending.withLock { $0 = error } }
        inbox.post(ending)
        inbox.finish()
        stalled.finish()
    }

    func send(_ message: Message) async throws(TransportError) {
        guard !isClosed else { throw ending.withLock { $0 } ?? .notConnected }
        if server.takeStall() {
            _ = await stalled.next()
            throw ending.withLock { $0 } ?? .cancelled
        }
        server.record(message, from: number)
    }

    func receive() async throws(TransportError) -> TransportEvent {
        guard let next = await inbox.next() else { throw .cancelled }
        return try next.get()
    }

    func ping(_ number: UInt64) async throws(TransportError) {
        guard !isClosed else { throw ending.withLock { $0 } ?? .notConnected }
        if server.answersPing(number, on: self) { deliverPong(number) }
    }

    func close(code: CloseCode, reason: String) async {
        let first = closed.withLock { closed in
            defer { closed = true }
            return !closed
        }
        if first { server.recordClose(code, reason, from: number) }
        inbox.finish()
        stalled.finish()
    }
}
