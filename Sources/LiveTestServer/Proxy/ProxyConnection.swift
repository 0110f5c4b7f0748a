import LiveConnection
import WebSocketTransport

import typealias LiveConnection.Mutex

/// One client's connection through a ``WebSocketProxy``: its two links, the queue each way
/// between them, and the gates its faults shut.
///
/// Created at TCP accept with the client's address as its identity until the request says
/// otherwise (``WebSocketProxy/identify(_:as:)``). Its streams are reset from any task (a
/// fault, the buffer budget, the proxy stopping); its own task notices in its reads and writes.
final class ProxyConnection: BudgetHolder {
    let id: UInt64
    /// The client's source address, `host:port`.
    let address: String
    /// Shut while this connection's client is frozen (the proxy's own gate covers a freeze of all).
    let frozen = Gate()
    /// Shut while this connection's client's handshakes hang.
    let hung = Gate()
    /// Open once a close frame has passed either way (or the proxy sent its own): the close
    /// handshake's timeout runs from then.
    let closing = Gate()
    /// Client → upstream, and upstream → client.
    let toUpstream: RelayQueue
    let toClient: RelayQueue
    // Strong: the proxy holds its connections only while they are registered, so the cycle ends with them.
    private let proxy: WebSocketProxy

    private struct State {
        var client: String
        /// TCP, replaced by TLS over it once the TLS handshake is done.
        var clientStream: any ByteStream
        var upstream: (any ByteStream)?
        var isOpen = false
        var ended = false
        var endReason: String?
        /// What each link's reader holds of frames and messages not yet complete.
        var incoming: [ProxyEvent.Link: Int] = [:]
    }

    private let state: Mutex<State>

    init(id: UInt64, stream: any ByteStream, address: String, proxy: WebSocketProxy) {
        self.id = id
        self.address = address
        self.proxy = proxy
        self.state = Mutex(State(client: address, clientStream: stream))
        let limit = proxy.configuration.maxQueuedBytes
        toUpstream = RelayQueue(byteLimit: limit, budget: proxy.budget, owner: id)
        toClient = RelayQueue(byteLimit: limit, budget: proxy.budget, owner: id)
        closing.shut()
    }

    /// Who the client is (``ClientIdentity``); its address until its request has arrived.
    var client: String { state.withLock { $0.client } }

    func setClient(_ client: String) { state.withLock { $0.client = client } }

    var clientStream: any ByteStream { state.withLock { $0.clientStream } }

    func replaceClientStream(_ stream: any ByteStream) { state.withLock { $0.clientStream = stream } }

    /// The stream of a link (nil for the upstream before it is connected).
    func stream(_ link: ProxyEvent.Link) -> (any ByteStream)? {
        state.withLock { link == .client ? $0.clientStream : $0.upstream }
    }

    /// Both links are open; false once the connection ended. A reset that came first wins:
    /// the upstream is then dropped at once.
    func markOpen(upstream: any ByteStream) -> Bool {
        let ended = state.withLock { state in
            state.upstream = upstream
            state.isOpen = !state.ended
            return state.ended
        }
        if ended { upstream.reset() }
        return !ended
    }

    var isOpen: Bool { state.withLock { $0.isOpen && !$0.ended } }

    /// Why the connection ended, first reason first.
    var endReason: String? { state.withLock { $0.endReason } }

    func noteEnd(_ reason: String) {
        state.withLock { state in
            if state.endReason == nil { state.endReason = reason }
            state.ended = true
        }
    }

    /// The queue toward a link.
    func queue(toward link: ProxyEvent.Link) -> RelayQueue { link == .client ? toClient : toUpstream }

    /// Charges what one link's reader holds to the proxy's budget.
    func noteIncoming(_ link: ProxyEvent.Link, _ bytes: Int) {
        let total = state.withLock { state in
            state.incoming[link] = bytes
            return state.incoming.values.reduce(0, +)
        }
        proxy.budget.drop(proxy.budget.setIncoming(id, total))
    }

    /// The proxy closes the connection of its own accord: the client gets a close frame with
    /// this code and reason after what is queued for it, the upstream one with 1001. Nothing
    /// is forwarded after them; the close handshake's timeout starts.
    func closeFromProxy(code: CloseCode, reason: String) {
        let item = RelayQueue.Item(
            opcode: .close, payload: ClosePayload(code: code, reason: reason).bytes, enqueuedAt: .now)
        if toClient.pushNow(item) { proxy.note(self, .closed(by: .proxy, code: code, reason: reason)) }
        closeUpstream(reason: "the proxy closed the client's connection")
    }

    /// Sends the upstream a close 1001 with this reason, unless a close went that way already.
    func closeUpstream(reason: String) {
        let payload = ClosePayload(code: .goingAway, reason: reason)
        toUpstream.pushNow(RelayQueue.Item(opcode: .close, payload: payload.bytes, enqueuedAt: .now))
        closing.open()
    }

    /// Drops both links with a TCP reset: no close frames, queued frames discarded.
    func reset(because reason: String) {
        let first = state.withLock { !$0.ended }
        noteEnd(reason)
        if first { proxy.note(self, .resetByProxy(reason)) }
        toClient.end()
        toUpstream.end()
        let (client, upstream) = state.withLock { ($0.clientStream, $0.upstream) }
        client.reset()
        upstream?.reset()
    }
}
