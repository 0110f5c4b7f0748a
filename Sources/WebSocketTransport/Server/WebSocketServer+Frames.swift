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
        while true {
            do {
                try await frozen.pass()
            } catch {
                return
            }
            do throws(ProtocolFailure) {
                while let event = try decoder.nextEvent() {
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
                        return
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
            let bytes: [UInt8]
            do {
                bytes = try await connection.stream.read(maximum: 64 * 1024, until: nil)
            } catch {
                connection.noteEnd(error == .cancelled ? "server stopped" : "\(error)")
                connection.outbox.end()
                return
            }
            if bytes.isEmpty {
                connection.noteEnd("the client closed TCP without a close frame")
                connection.outbox.end()
                return
            }
            // Dropped by the idle timeout: what the client sends goes nowhere.
            if connection.isSilenced { continue }
            connection.touch()
            decoder.append(bytes)
            connection.noteIncoming(decoder.heldByteCount)
        }
    }

    /// Writes what is queued, making each frame as it goes: the one writer takes the items
    /// in wire order, so the deflater sees the messages in the order the client inflates
    /// them, which context takeover needs (RFC 7692 §7.2.1).
    func writeFrames(_ connection: ServerConnection, deflater: MessageDeflater?) async {
        while let item = await connection.outbox.next() {
            do {
                try await frozen.pass()
            } catch {
                return
            }
            let latency = self.latency
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
}
