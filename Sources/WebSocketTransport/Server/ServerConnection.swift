public import LiveConnection

public import typealias LiveConnection.Mutex

/// One client connection of a ``WebSocketServer``, as its handler and the test controls see it.
///
/// ```swift
/// connection.send(.text("hello"))            // queued; never waits for the client
/// connection.close(code: .init(4001), reason: "token expired")
/// connection.reset()                         // TCP RST: the client sees ECONNRESET
/// ```
///
/// Sending never waits: a frame is written at once when nothing is queued before it and the
/// socket takes it (`WriteThrough`, package-wide), else queued (see
/// ``WebSocketServer/Configuration/maxQueuedBytes``), so a slow client cannot stall a
/// broadcast to the others. A client that lets more than that pile
/// up (its pongs count) is reset as a slow reader; when the server as a whole holds more
/// than ``WebSocketServer/Configuration/maxBufferedBytes``, the connections holding the most
/// are dropped.
public final class ServerConnection: BudgetHolder {
    /// Numbered from 1 in the order the server accepted the TCP connections.
    public let id: UInt64
    let outbox: Outbox
    /// The server-wide tally this connection's queue and reader are charged to.
    let budget: BufferBudget
    /// The client's address (without its port), as the socket reported it at accept; empty if unknown.
    public let peerHost: String
    let observer: (any ServerWireObserver)?

    private struct State {
        /// TCP, replaced by TLS over it once the TLS handshake is done.
        var stream: any ByteStream
        var request: UpgradeRequest?
        /// A complete request head arrived (an upgrade or a plain request): no longer idle.
        var hasHead = false
        /// What the handshake agreed; nil without compression.
        var compression: DeflateParameters?
        var isOpen = false
        var ended = false
        var endReason: String?
        /// The last frame either way (from the 101 on): the idle timeout counts from it.
        var lastTraffic = ContinuousClock.now
        /// Dropped silently by the idle timeout: nothing is read or written any more.
        var silenced = false
    }

    private let state: Mutex<State>

    init(
        id: UInt64, stream: any ByteStream, maxQueuedBytes: Int, budget: BufferBudget, peerHost: String = "",
        observer: (any ServerWireObserver)? = nil
    ) {
        self.id = id
        self.peerHost = peerHost
        self.observer = observer
        self.state = Mutex(State(stream: stream))
        self.budget = budget
        self.outbox = Outbox(byteLimit: maxQueuedBytes, budget: budget, owner: id)
    }

    var stream: any ByteStream { state.withLock { $0.stream } }

    func replaceStream(_ stream: any ByteStream) { state.withLock { $0.stream = stream } }

    /// The client's upgrade request, once it has been read.
    public var request: UpgradeRequest? { state.withLock { $0.request } }

    /// The permessage-deflate parameters agreed in the handshake; nil without compression
    /// (not configured, or the client offered nothing valid).
    public var compression: DeflateParameters? { state.withLock { $0.compression } }

    /// True from the moment the 101 is sent until the connection ends.
    public var isOpen: Bool { state.withLock { $0.isOpen && !$0.ended } }

    /// Why the connection ended ("closed 1000", "reset by the server", "protocol error 1002 …").
    public var endReason: String? { state.withLock { $0.endReason } }

    /// Sends or queues a data message; false if the connection is closing or ended, or the client
    /// was reset for not reading (it had more than the queue limit outstanding). It is
    /// compressed when it goes out, if the handshake agreed to.
    @discardableResult
    public func send(_ message: Message) -> Bool {
        let refusal =
            switch message {
            case .text(let text): deliver(Array(text.utf8), .data(.text))
            case .binary(let data): deliver(Array(data), .data(.binary))
            }
        switch refusal {
        case nil: return true
        case .closed, .overBudget: return false
        case .overLimit:
            resetAsSlowReader()
            return false
        }
    }

    /// Sends or queues the answer to a ping; a client that lets its pongs pile up past the queue
    /// limit is reset as a slow reader, as for data.
    func sendPong(_ payload: [UInt8]) {
        switch deliver(payload, .pong) {
        // Queued; or closing (no pong after our close, §5.5.1); or dropped by the budget already.
        case nil, .closed, .overBudget: break
        case .overLimit: resetAsSlowReader()
        }
    }

    /// What the reader holds of frames and messages not yet complete, charged to the budget.
    func noteIncoming(_ bytes: Int) {
        budget.drop(budget.setIncoming(id, bytes))
    }

    private func resetAsSlowReader() {
        let reason = "reset: the client did not read \(outbox.byteLimit) queued bytes"
        // Counted once per connection: a broadcast racing the reset is refused again.
        let first = state.withLock { state in
            guard !state.ended else { return false }
            state.endReason = reason
            state.ended = true
            return true
        }
        guard first else { return }
        observe(.reset(reason: reason))
        budget.noteSlowReader()
        reset(because: reason)
    }

    /// Starts the close handshake: our close frame goes out after what is queued; the
    /// connection ends when the client answers or the close timeout passes.
    public func close(code: CloseCode, reason: String = "") {
        outbox.enqueue(ClosePayload(code: code, reason: reason).bytes, .close(final: false))
    }

    /// Drops the connection with a TCP reset: no close frame, queued frames discarded.
    public func reset() { reset(because: "reset by the server") }

    package func reset(because reason: String) {
        let first = state.withLock { !$0.ended }
        if first { observe(.reset(reason: reason)) }
        noteEnd(reason)
        outbox.end()
        stream.reset()
    }

    func markOpen(_ request: UpgradeRequest, compression: DeflateParameters?) {
        state.withLock { state in
            state.request = request
            state.compression = compression
            state.isOpen = true
            state.lastTraffic = .now
        }
    }

    func noteRequest(_ request: UpgradeRequest) { state.withLock { $0.request = request } }

    /// Tells the server's observer, if it has one.
    func observe(_ event: ServerWireEvent) { observer?.observe(event, on: self) }

    /// A complete request head has arrived: the connection is working, not idle, and is not evicted.
    func noteHead() { state.withLock { $0.hasHead = true } }

    /// True once a complete request head has arrived.
    var hasHead: Bool { state.withLock { $0.hasHead } }

    /// A frame went either way: the idle timeout starts again.
    func touch() { state.withLock { $0.lastTraffic = .now } }

    var lastTraffic: ContinuousClock.Instant { state.withLock { $0.lastTraffic } }

    /// True once the idle timeout dropped the connection.
    var isSilenced: Bool { state.withLock { $0.silenced } }

    /// Drops the connection silently, as a NAT gateway forgets an idle flow: the socket stays
    /// open, but what the client sends is read and discarded and nothing is written (no
    /// pongs, no close frame), so only the client's heartbeat can tell. Returns true the first time.
    func silence() -> Bool {
        state.withLock { state in
            defer { state.silenced = true }
            return !state.silenced
        }
    }

    /// Records the first reason the connection ended; later ones are consequences.
    func noteEnd(_ reason: String) {
        state.withLock { state in
            if state.endReason == nil { state.endReason = reason }
            state.ended = true
        }
    }
}
