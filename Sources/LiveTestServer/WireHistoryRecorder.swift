import Foundation
import LiveConnection
public import WebSocketTransport
public import WireHistory

import typealias LiveConnection.Mutex

/// Turns what a server sees on the wire into a wire history, streamed to a file: plug it
/// into a ``WebSocketServer`` (or ``LiveTestServer``) as its observer, or into a
/// ``WebSocketProxy`` (it is a ``ProxyObserver`` too: `WireHistoryRecorder+Proxy.swift`).
///
/// ```swift
/// let writer = try WireHistoryWriter(path: "run.jsonl", header: header)
/// let recorder = WireHistoryRecorder(writer: writer)
/// let live = try LiveTestServer(configuration: .init(port: 0), observer: recorder)
/// // … serve …
/// recorder.end()              // the judge's end instant
/// try writer.close()
/// ```
///
/// A connection's client is, in this order: the `client` query parameter of its request
/// (`/live?client=phone-1`), its `X-Livesim-Client` header, or the address it came from.
/// It keeps one small entry per connection in progress, and none once a connection is done.
public final class WireHistoryRecorder: ServerWireObserver {
    struct Connection {
        var opened = false
        var attemptEnded = false
        /// The client's close frame arrived: the server's next close frame is its echo.
        var clientClosed = false
    }

    public let writer: WireHistoryWriter
    let connections = Mutex<[UInt64: Connection]>([:])

    public init(writer: WireHistoryWriter) {
        self.writer = writer
    }

    /// The run is over: records the end instant (what follows is the clients' teardown).
    public func end() { writer.record(.end) }

    /// The client a request names: its `client` query parameter, its `X-Livesim-Client`
    /// header, or (when it names none) `peer`, the address it came from.
    public static func client(of request: UpgradeRequest?, peer: String) -> String {
        if let request {
            if let query = request.resource.split(separator: "?", maxSplits: 1).dropFirst().first {
                for pair in query.split(separator: "&") where pair.hasPrefix("client=") {
                    let value = String(pair.dropFirst("client=".count))
                    let decoded = value.removingPercentEncoding ?? value
                    if !decoded.isEmpty { return String(decoded.prefix(128)) }
                }
            }
            if let header = request.values(of: "x-livesim-client").first, !header.isEmpty {
                return String(header.prefix(128))
            }
        }
        return peer.isEmpty ? "unknown" : peer
    }

    public func observe(_ event: ServerWireEvent, on connection: ServerConnection?) {
        guard let connection else {
            if case .fault(let fault) = event { writer.record(.fault(Self.record(fault), client: nil)) }
            return
        }
        let id = Int(connection.id)
        switch event {
        case .requested:
            connections.withLock { $0[connection.id] = Connection() }
            writer.record(
                .attempt(
                    connection: id, client: Self.client(of: connection.request, peer: connection.peerHost),
                    path: connection.request?.resource ?? ""))
        case .refused(let status):
            if endAttempt(connection.id) {
                writer.record(.attemptFailed(connection: id, reason: "handshake \(status)"))
            }
        case .abandoned(let reason):
            if endAttempt(connection.id) { writer.record(.attemptFailed(connection: id, reason: reason)) }
        case .opened:
            connections.withLock { $0[connection.id, default: Connection()].opened = true }
            writer.record(.opened(connection: id))
        case .received(let message):
            switch message {
            case .text(let text): recordText(text, connection: id)
            case .binary(let data):
                writer.record(.clientMessage(connection: id, binary: true, size: data.count, text: nil))
            }
        case .pinged: writer.record(.clientPing(connection: id))
        case .pongSent: writer.record(.pong(connection: id))
        case .sent(let binary, let size): writer.record(.serverMessage(connection: id, binary: binary, size: size))
        case .closeReceived(let code, let reason):
            connections.withLock { $0[connection.id]?.clientClosed = true }
            writer.record(.clientClose(connection: id, code: code.map { Int($0.rawValue) }, reason: reason))
        case .clientEnded: writer.record(.clientEnd(connection: id))
        case .closeSent(let code, let reason):
            // The echo of the client's close is its close handshake, not the server ending the socket.
            let echo = connections.withLock { $0[connection.id]?.clientClosed ?? true }
            if !echo, let code { writer.record(.serverClose(connection: id, code: Int(code.rawValue), reason: reason)) }
        case .reset(let reason):
            let opened = connections.withLock { $0[connection.id]?.opened }
            switch opened {
            case true?: writer.record(.serverReset(connection: id, reason: reason))
            case false?: if endAttempt(connection.id) { writer.record(.attemptFailed(connection: id, reason: "reset")) }
            case nil: break  // no request seen: not an attempt the history knows
            }
        case .silenced: writer.record(.idleDrop(connection: id))
        case .done:
            let entry = connections.withLock { $0.removeValue(forKey: connection.id) }
            if entry?.opened == true { writer.record(.serverDone(connection: id)) }
        case .fault(let fault): writer.record(.fault(Self.record(fault), client: nil))
        }
    }

    /// A text message from the client, clipped to ``WireHistoryRecord/textLimit`` bytes.
    func recordText(_ text: String, connection id: Int) {
        let size = text.utf8.count
        let clipped = size <= WireHistoryRecord.textLimit ? text : Self.clip(text)
        writer.record(.clientMessage(connection: id, binary: false, size: size, text: clipped))
    }

    /// Marks the attempt ended; true the first time (a refusal then the connection's end tell it once).
    func endAttempt(_ id: UInt64) -> Bool {
        connections.withLock { connections in
            guard var entry = connections[id], !entry.opened, !entry.attemptEnded else { return false }
            entry.attemptEnded = true
            connections[id] = entry
            return true
        }
    }

    /// The first ``WireHistoryRecord/textLimit`` bytes of `text`, cut at a character boundary.
    static func clip(_ text: String) -> String {
        var bytes = 0
        var end = text.startIndex
        for index in text.indices {
            let next = bytes + text[index].utf8.count
            if next > WireHistoryRecord.textLimit { break }
            bytes = next
            end = text.index(after: index)
        }
        return String(text[..<end])
    }

    static func record(_ fault: ServerFault) -> WireFault {
        switch fault {
        case .freeze: .freeze
        case .thaw: .thaw
        case .refuse(let on): .refuse(on)
        case .handshakeStatus(let status): .handshakeStatus(status)
        case .hang(let on): .hang(on)
        case .acceptThenClose(let code, let reason):
            .acceptThenClose(code: code.map { Int($0.rawValue) }, reason: reason)
        case .closeAll(let code, let reason): .closeAll(code: Int(code.rawValue), reason: reason)
        case .resetAll(let handshakes): .resetAll(handshakes: handshakes)
        case .restart: .restart
        case .idleTimeout(let timeout): .idleTimeout(timeout)
        case .latency(let latency): .latency(latency)
        }
    }
}
