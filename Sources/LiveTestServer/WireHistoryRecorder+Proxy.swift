import LiveConnection
import WebSocketTransport
import WireHistory

/// The same wire history from a ``WebSocketProxy``: the proxy and the user's server behind it
/// are the server the client sees, so the records are those `serve --record` writes, read off
/// the client's link (`docs/wire-history.md`, "Recorded by the proxy").
///
/// ```swift
/// let recorder = WireHistoryRecorder(writer: writer)
/// let proxy = try WebSocketProxy(configuration: .init(upstream: upstream), observer: recorder)
/// ```
///
/// A fault aimed at one client is recorded with that client's name (`"client"` in the fault
/// record); one aimed at all without. A connection's client is the proxy's
/// ``ClientIdentity``, except that a client that names itself nowhere is its address without
/// the port, as the server records it (the proxy's own fallback, the address with its port,
/// changes on every reconnection, and a judge could not follow the client across them).
extension WireHistoryRecorder: ProxyObserver {
    public func observe(_ event: ProxyEvent) {
        let id = Int(event.connection)
        switch event.kind {
        case .attempt(let resource, let address):
            connections.withLock { $0[event.connection] = Connection() }
            let client = event.client == address ? Self.host(of: address) : event.client
            writer.record(.attempt(connection: id, client: client, path: resource))
        case .handshake(let status):
            // 101 is followed by `opened`; anything else ends the attempt.
            if status != 101, endAttempt(event.connection) {
                writer.record(.attemptFailed(connection: id, reason: "handshake \(status)"))
            }
        case .opened:
            connections.withLock { $0[event.connection, default: Connection()].opened = true }
            writer.record(.opened(connection: id))
        case .clientText(let text):
            recordText(text, connection: id)
        case .frame(.received, .client, let opcode, let size):
            switch opcode {
            case .binary: writer.record(.clientMessage(connection: id, binary: true, size: size, text: nil))
            case .ping: writer.record(.clientPing(connection: id))
            // Text comes with its words (clientText); a pong answers the upstream's ping, which
            // a server's history does not record; a close comes as `closed(by: .client…)`.
            case .text, .pong, .close, .continuation: break
            }
        case .frame(.sent, .client, let opcode, let size):
            switch opcode {
            case .text, .binary: writer.record(.serverMessage(connection: id, binary: opcode == .binary, size: size))
            case .pong: writer.record(.pong(connection: id))
            // The upstream's pings are its own heartbeat (not in a server's history); a close
            // comes as `closeSent(.client…)`.
            case .ping, .close, .continuation: break
            }
        case .frame(_, .upstream, _, _):
            break  // the upstream's link: the client sees none of it but what is relayed
        case .closed(by: .client, let code, let reason):
            connections.withLock { $0[event.connection]?.clientClosed = true }
            writer.record(.clientClose(connection: id, code: code.map { Int($0.rawValue) }, reason: reason))
        case .closed(by: .upstream, _, _), .closed(by: .proxy, _, _):
            break  // recorded when it reaches the client's link: `closeSent`
        case .closeSent(.client, let code, let reason):
            // The echo of the client's close is its close handshake, not the server ending the socket.
            let echo = connections.withLock { $0[event.connection]?.clientClosed ?? true }
            if !echo, let code { writer.record(.serverClose(connection: id, code: Int(code.rawValue), reason: reason)) }
        case .closeSent(.upstream, _, _):
            break
        case .reset(.client, let detail):
            guard isOpened(event.connection) else { break }
            if detail == "ETIMEDOUT" {
                // A client that took nothing for the write timeout: the proxy drops it, as a server drops a slow reader.
                writer.record(.serverReset(connection: id, reason: "a write to the client stalled"))
            } else {
                writer.record(.clientEnd(connection: id))
            }
        case .reset(.upstream, let detail):
            // The proxy mirrors it on the client's link: to the client, the server ended without a close frame.
            if isOpened(event.connection) {
                writer.record(
                    .serverReset(connection: id, reason: "the upstream ended without a close frame (\(detail))"))
            }
        case .resetByProxy(let reason):
            if isOpened(event.connection) {
                writer.record(.serverReset(connection: id, reason: reason))
            } else if endAttempt(event.connection) {
                writer.record(.attemptFailed(connection: id, reason: "reset"))
            }
        case .fault:
            break  // recorded once per control, with its target: observe(_:aimedAt:)
        case .ended:
            let entry = connections.withLock { $0.removeValue(forKey: event.connection) }
            if entry?.opened == true {
                writer.record(.serverDone(connection: id))
            } else if let entry, !entry.attemptEnded {
                writer.record(.attemptFailed(connection: id, reason: "abandoned"))
            }
        }
    }

    public func observe(_ fault: ProxyFault, aimedAt target: FaultTarget) {
        writer.record(.fault(Self.record(fault), client: target.client))
    }

    private func isOpened(_ connection: UInt64) -> Bool {
        connections.withLock { $0[connection]?.opened ?? false }
    }

    /// `127.0.0.1:53122` → `127.0.0.1`, `[::1]:53122` → `::1`: the server's name for a client that gives none.
    public static func host(of address: String) -> String {
        if address.hasPrefix("["), let close = address.firstIndex(of: "]") {
            return String(address[address.index(after: address.startIndex)..<close])
        }
        guard let colon = address.lastIndex(of: ":") else { return address }
        return String(address[..<colon])
    }

    static func record(_ fault: ProxyFault) -> WireFault {
        switch fault {
        case .freeze: .freeze
        case .thaw: .thaw
        case .refuse(let on): .refuse(on)
        case .handshakeStatus(let status): .handshakeStatus(status)
        case .hang(let on): .hang(on)
        case .acceptThenClose(let code, let reason):
            .acceptThenClose(code: code.map { Int($0.rawValue) }, reason: reason)
        case .close(let code, let reason): .closeAll(code: Int(code.rawValue), reason: reason)
        // The proxy's reset acts on open connections only.
        case .reset: .resetAll(handshakes: false)
        case .latency(let latency): .latency(latency ?? .zero)
        case .slicing(let slicing): .slice(bytes: slicing?.bytes, pause: slicing?.pause ?? .zero)
        }
    }
}
