import Foundation
import LiveConnection
import WebSocketTransport

/// A proxied connection's opening: the client's request, the faults that answer it, the
/// upstream's handshake, and the 101 that passes its answer on.
extension WebSocketProxy {
    /// Both links open: the bytes each side sent after its handshake, to decode first.
    struct Opened {
        var upstream: any ByteStream
        var fromClient: [UInt8]
        var fromUpstream: [UInt8]
    }

    func serve(_ connection: ProxyConnection) async {
        defer { unregister(connection) }
        guard let opened = await handshake(connection) else {
            connection.noteEnd("handshake not completed")
            connection.clientStream.shutdown()
            note(connection, .ended(connection.endReason ?? "handshake not completed"))
            return
        }
        await relay(connection, opened)
        note(connection, .ended(connection.endReason ?? "ended"))
    }

    /// Reads the client's request within the handshake timeout and answers it; nil when the
    /// connection is not opened.
    private func handshake(_ connection: ProxyConnection) async -> Opened? {
        let deadline = ContinuousClock.now + configuration.handshakeTimeout
        var stream = connection.clientStream
        var received: [UInt8] = []
        let request: UpgradeRequest
        do throws(TransportError) {
            if let tls = configuration.tls, let socket = stream as? TCPSocket {
                stream = try await TLSStream.accept(over: socket, context: tls, until: deadline)
                connection.replaceClientStream(stream)
            }
            while true {
                do throws(UpgradeRefusal) {
                    if let (parsed, consumed) = try UpgradeRequest.parse(received) {
                        request = parsed
                        received.removeFirst(consumed)
                        break
                    }
                } catch {
                    count { $0.handshakesRefused += 1 }
                    await refuse(connection, with: error)
                    return nil
                }
                let bytes = try await stream.read(maximum: 4096, until: deadline)
                if bytes.isEmpty { return nil }
                received += bytes
            }
        } catch {
            if error == .reset(errno: "ETIMEDOUT") { count { $0.handshakeTimeouts += 1 } }
            return nil
        }
        let standing = identify(
            connection,
            as: ClientIdentity.of(resource: request.resource, headers: request.headers, address: connection.address))
        note(connection, .attempt(resource: request.resource, address: connection.address))
        // The standing faults this connection meets, so its history explains what follows.
        for fault in standing { note(connection, .fault(fault)) }
        // A frozen proxy, or hung handshakes, leave the client waiting: its connect timeout decides.
        guard await waitWhileHeld(connection) else { return nil }
        let (status, acceptThenClose) = handshakeFaults(for: connection.client)
        if let status {
            note(connection, .fault("handshake-status \(status)"))
            count { $0.handshakesRefused += 1 }
            await refuse(connection, with: UpgradeRefusal(status: status, reason: "refused by the livesim proxy"))
            return nil
        }
        let upstream: UpstreamLink
        do throws(UpgradeRefusal) {
            upstream = try await connectUpstream(for: request, client: connection.address)
        } catch {
            await refuse(connection, with: error)
            return nil
        }
        let latency = link(for: connection.client).latency
        if latency > .zero {
            _ = await IOReactor.shared.wait(for: .readable, on: -1, until: .now + latency * 2)
        }
        // Open before the 101 leaves: a fault posted as soon as the client reports open must
        // find the connection.
        guard connection.markOpen(upstream: upstream.stream) else { return nil }
        do throws(TransportError) {
            try await stream.write(
                request.acceptance(subprotocol: upstream.subprotocol), until: .now + configuration.writeTimeout)
        } catch {
            connection.reset(because: "the client left before the 101: \(error)")
            return nil
        }
        count { $0.handshakesCompleted += 1 }
        note(connection, .handshake(status: 101))
        note(connection, .opened)
        if let close = acceptThenClose, let code = close.code {
            note(connection, .fault("accept-then-close \(code.rawValue) \(close.reason)"))
            connection.closeFromProxy(code: code, reason: close.reason)
        }
        return Opened(upstream: upstream.stream, fromClient: received, fromUpstream: upstream.leftover)
    }

    /// Waits while the proxy or the client is frozen or hung; false when the client left (or
    /// the proxy stopped) meanwhile. The client's socket is watched while it waits, so a client
    /// that gives up is let go at once.
    private func waitWhileHeld(_ connection: ProxyConnection) async -> Bool {
        let gates = [frozen, connection.frozen, hung, connection.hung]
        if gates.allSatisfy(\.isOpen) { return true }
        let stream = connection.clientStream
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                do {
                    for gate in gates { try await gate.pass() }
                    // A gate may have shut again while we passed the next.
                    while !gates.allSatisfy(\.isOpen) { for gate in gates { try await gate.pass() } }
                    return true
                } catch {
                    return false
                }
            }
            group.addTask {
                // A client must send nothing before the 101: bytes or the end both mean it is done.
                _ = try? await stream.read(maximum: 1, until: nil)
                return false
            }
            let released = await group.next() ?? false
            group.cancelAll()
            return released
        }
    }

    /// Sends an HTTP refusal and closes after it (lingering, so it is not lost to a reset).
    private func refuse(_ connection: ProxyConnection, with refusal: UpgradeRefusal) async {
        note(connection, .handshake(status: refusal.status))
        let stream = connection.clientStream
        try? await stream.write(refusal.response, until: .now + configuration.writeTimeout)
        await stream.lingeringClose(until: .now + configuration.closeTimeout)
    }
}
