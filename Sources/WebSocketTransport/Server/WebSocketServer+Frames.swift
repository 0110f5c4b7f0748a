import LiveConnection

/// The open connection's two tasks: the reader decodes the client's frames and acts on
/// them, the writer sends what is queued. Freeze and latency apply to both; a connection the
/// idle timeout dropped reads and discards, and writes nothing. With permessage-deflate the
/// reader inflates (the size limit holding for the inflated message) and the writer deflates.
extension WebSocketServer {
    func readFrames(_ connection: ServerConnection, leftover: [UInt8], inflater: MessageInflater?) async {
        var decoder = FrameDecoder(maxMessageSize: configuration.maxMessageSize, inflater: inflater, role: .server)
        decoder.append(leftover)
        // What the decoder holds is the server's too: charged on every change, released at the end.
        defer { connection.noteIncoming(0) }
        // Frames decoded while frozen: seen on arrival (the wire is watched, so a client that
        // gives a frozen socket up is seen doing so), acted on at the thaw, in order.
        var held: [InboundEvent] = []
        var heldBytes = 0
        while true {
            if frozen.isOpen, !held.isEmpty {
                for event in held where await act(on: event, connection) == .stop { return }
                held = []
                heldBytes = 0
            }
            do throws(ProtocolFailure) {
                while let event = try decoder.nextEvent() {
                    if let observed = Self.observation(of: event) { connection.observe(observed) }
                    // Dropped by the idle timeout: what the client sends goes nowhere.
                    if connection.isSilenced { continue }
                    if frozen.isOpen, held.isEmpty {
                        if await act(on: event, connection) == .stop { return }
                    } else {
                        held.append(event)
                        heldBytes += Self.size(of: event)
                    }
                }
            } catch {
                // Fail the connection (§7.1.7) with the failure's code; nothing more is read.
                state.withLock { $0.statistics.protocolFailures += 1 }
                connection.noteEnd("failed \(error.code.rawValue): \(error.detail)")
                // Refused if a close of ours is queued already: then that one ends the connection.
                connection.outbox.enqueue(ClosePayload(code: error.code).bytes, .close(final: true))
                return
            }
            connection.noteIncoming(decoder.heldByteCount)
            // Frozen with much held back: stop reading, as a frozen server does, until the thaw.
            if heldBytes > configuration.maxMessageSize {
                do {
                    try await frozen.pass()
                } catch {
                    return
                }
                continue
            }
            let bytes: [UInt8]
            do {
                // Frozen with frames held: look again at the thaw (at most this late).
                let wake: ContinuousClock.Instant? = held.isEmpty ? nil : .now + .milliseconds(50)
                bytes = try await connection.stream.read(maximum: 64 * 1024, until: wake)
            } catch {
                if error == .reset(errno: "ETIMEDOUT") { continue }
                connection.noteEnd(error == .cancelled ? "server stopped" : "\(error)")
                if error != .cancelled { connection.observe(.clientEnded) }
                connection.outbox.end()
                return
            }
            if bytes.isEmpty {
                connection.noteEnd("the client closed TCP without a close frame")
                connection.observe(.clientEnded)
                connection.outbox.end()
                return
            }
            if !connection.isSilenced { connection.touch() }
            decoder.append(bytes)
            connection.noteIncoming(decoder.heldByteCount)
        }
    }

    enum ReaderStep { case next, stop }

    /// Acts on one frame the client sent: hands a message to the handler, answers a ping,
    /// echoes a close (and stops reading).
    private func act(on event: InboundEvent, _ connection: ServerConnection) async -> ReaderStep {
        switch event {
        case .message(let message):
            await handler.received(message, on: connection)
        case .ping(let payload):
            connection.sendPong(payload)
        case .pong:
            break  // unsolicited pongs are allowed and ignored (§5.5.3)
        case .close(let body):
            // Our close went out already: this is the answer. Else echo the code (§5.5.1).
            connection.noteEnd("closed \(body.code.map { "\($0.rawValue)" } ?? "1005")")
            connection.outbox.enqueue(ClosePayload(code: body.code).bytes, .close(final: true))
            return .stop
        }
        return .next
    }

    /// What an observer hears of a frame the client sent (nothing of an unsolicited pong: it changes nothing).
    static func observation(of event: InboundEvent) -> ServerWireEvent? {
        switch event {
        case .message(let message): .received(message)
        case .ping: .pinged
        case .pong: nil
        case .close(let body): .closeReceived(code: body.code, reason: body.reason)
        }
    }

    /// The payload bytes a frame held back while frozen keeps in memory.
    static func size(of event: InboundEvent) -> Int {
        switch event {
        case .message(.text(let text)): text.utf8.count
        case .message(.binary(let data)): data.count
        case .ping(let payload), .pong(let payload): payload.count
        case .close: 2
        }
    }

    /// Writes what is queued, making each frame as it goes: the one writer takes the items
    /// in wire order, so the deflater sees the messages in the order the client inflates
    /// them, which context takeover needs (RFC 7692 §7.2.1).
    func writeFrames(_ connection: ServerConnection, deflater: MessageDeflater?) async {
        if let socket = connection.stream as? TCPSocket {
            // While this task waits with nothing queued, a sender may write for it (WriteThrough).
            connection.outbox.allowWriteThrough(
                WriteThrough(socket: socket, deflater: deflater) { [self] in
                    frozen.isOpen && currentLatency == .zero
                })
        }
        while let item = await connection.outbox.next() {
            if item.isRestOfFrame {
                // Begun by a sender writing through: encoded, observed and past the gates already.
                do {
                    try await connection.stream.write(item.payload, until: nil)
                } catch {
                    connection.noteEnd("\(error)")
                    return
                }
                connection.touch()
                continue
            }
            do {
                try await frozen.pass()
            } catch {
                return
            }
            let latency = currentLatency
            let delay = item.kind == .pong ? latency * 2 : latency
            if delay > .zero {
                _ = await IOReactor.shared.wait(for: .readable, on: -1, until: item.enqueuedAt + delay)
            }
            // Dropped by the idle timeout: nothing reaches the client, not even a close frame.
            if connection.isSilenced { continue }
            let isClose = if case .close = item.kind { true } else { false }
            // Data messages only: control frames are never compressed (§6.1).
            let compressed = item.isData ? deflater?.compress(item.payload) : nil
            let frame = FrameEncoder.encode(
                item.opcode, payload: compressed ?? item.payload, compressed: compressed != nil, maskKey: nil)
            // Told as it leaves, before the client can answer it: a close answered at once must
            // be heard after the close it answers.
            if connection.observer != nil { connection.observe(Self.observation(of: item)) }
            do {
                try await connection.stream.write(frame, until: isClose ? .now + configuration.closeTimeout : nil)
            } catch {
                connection.noteEnd("\(error)")
                return
            }
            connection.touch()
            if case .close(let final) = item.kind {
                if final {
                    await connection.stream.lingeringClose(until: .now + configuration.closeTimeout)
                }
                return
            }
        }
    }

    /// What an observer hears of a frame the server wrote.
    static func observation(of item: Outbox.Item) -> ServerWireEvent {
        switch item.kind {
        case .data(let opcode): .sent(binary: opcode == .binary, size: item.payload.count)
        case .pong: .pongSent
        case .close:
            (try? ClosePayload(parsing: item.payload)).map { .closeSent(code: $0.code, reason: $0.reason) }
                ?? .closeSent(code: nil, reason: "")
        }
    }
}
