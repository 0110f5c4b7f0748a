import LiveConnection
import WebSocketTransport

/// An open proxied connection: each direction a reader (decode from one link, queue) and a
/// writer (faults, encode, write to the other link), until the close handshake, a reset or a
/// failure ends it.
extension WebSocketProxy {
    /// How one direction, or the connection's close timer, ended.
    enum DirectionEnd: Sendable {
        /// A close frame passed (or the proxy sent its own) and everything queued went out.
        case closed
        /// The reading link ended without a close frame: reset (an errno), or TCP closed (`EOF`).
        case sourceEnded(ProxyEvent.Link, detail: String)
        /// A write to this link failed or stalled.
        case destinationFailed(ProxyEvent.Link, detail: String)
        /// Torn down from outside (a fault's reset, the budget, the proxy stopping).
        case stopped
        /// The close handshake took longer than the close timeout.
        case closeTimedOut
    }

    func relay(_ connection: ProxyConnection, _ opened: Opened) async {
        let closeTimeout = configuration.closeTimeout
        var closedDirections = 0
        var cleanClose = false
        await withTaskGroup(of: DirectionEnd.self) { group in
            group.addTask { await self.direction(connection, from: .client, leftover: opened.fromClient) }
            group.addTask { await self.direction(connection, from: .upstream, leftover: opened.fromUpstream) }
            group.addTask {
                do { try await connection.closing.pass() } catch { return .stopped }
                _ = await IOReactor.shared.wait(for: .readable, on: -1, until: .now + closeTimeout)
                return .closeTimedOut
            }
            ending: while let end = await group.next() {
                switch end {
                case .closed:
                    closedDirections += 1
                    guard closedDirections == 2 else { continue }
                    cleanClose = true
                    connection.noteEnd("closed")
                case .sourceEnded(let link, let detail):
                    // Mirror it on the other link: a reset as a reset, the end of TCP as an end.
                    let other: ProxyEvent.Link = link == .client ? .upstream : .client
                    connection.noteEnd("the \(link.rawValue) link ended without a close frame (\(detail))")
                    if detail == "EOF" {
                        connection.stream(other)?.shutdown()
                    } else {
                        connection.stream(other)?.reset()
                    }
                case .destinationFailed(let link, let detail):
                    let other: ProxyEvent.Link = link == .client ? .upstream : .client
                    connection.noteEnd("writing to the \(link.rawValue) link failed (\(detail))")
                    connection.stream(link)?.reset()
                    connection.stream(other)?.reset()
                case .stopped:
                    connection.noteEnd("stopped")
                case .closeTimedOut:
                    connection.noteEnd("the close handshake took longer than \(closeTimeout)")
                }
                break ending
            }
            group.cancelAll()
        }
        connection.toClient.end()
        connection.toUpstream.end()
        count {
            $0.discardedAfterClose +=
                connection.toClient.discardedAfterClose + connection.toUpstream.discardedAfterClose
        }
        connection.stream(.upstream)?.shutdown()
        let client = connection.clientStream
        // As the server of the client's link, close TCP first and read until the client does,
        // so our last frame is not destroyed by a reset (RFC 6455 §7.1.1).
        if cleanClose { await client.lingeringClose(until: .now + closeTimeout) }
        client.shutdown()
    }

    /// One direction: its reader and its writer. A failed write ends it at once (the reader may
    /// be waiting on a quiet link); otherwise the writer drains what the reader queued.
    private func direction(_ connection: ProxyConnection, from source: ProxyEvent.Link, leftover: [UInt8]) async
        -> DirectionEnd
    {
        let destination: ProxyEvent.Link = source == .client ? .upstream : .client
        let queue = connection.queue(toward: destination)
        enum Part: Sendable {
            case reader(DirectionEnd)
            case writer(DirectionEnd?)
        }
        return await withTaskGroup(of: Part.self) { group in
            group.addTask { .reader(await self.read(connection, from: source, into: queue, leftover: leftover)) }
            group.addTask { .writer(await self.write(connection, to: destination, from: queue)) }
            var readerEnd: DirectionEnd?
            while let part = await group.next() {
                switch part {
                case .writer(let failure?):
                    group.cancelAll()
                    return failure
                case .writer(nil):
                    if let readerEnd { return readerEnd }
                case .reader(let end):
                    readerEnd = end
                }
            }
            return readerEnd ?? .stopped
        }
    }

    // MARK: Reading

    /// Decodes the source link's frames and queues them toward the other link.
    private func read(
        _ connection: ProxyConnection, from link: ProxyEvent.Link, into queue: RelayQueue, leftover: [UInt8]
    ) async -> DirectionEnd {
        defer { queue.finish() }
        guard let stream = connection.stream(link) else { return .stopped }
        // The proxy is the server of the client's link and the client of the upstream's.
        var decoder = FrameDecoder(
            maxMessageSize: configuration.maxMessageSize, role: link == .client ? .server : .client)
        decoder.append(leftover)
        defer { connection.noteIncoming(link, 0) }
        while true {
            // The client's wire is watched while frozen (as the server watches it): a client that
            // gives a frozen socket up is seen when it does. What it sends waits in the queue,
            // which the writer holds until the thaw; the upstream's link is not read at all.
            if link == .upstream {
                do {
                    try await passFreeze(connection)
                } catch {
                    return .stopped
                }
            }
            do throws(ProtocolFailure) {
                while let event = try decoder.nextEvent() {
                    let item: RelayQueue.Item
                    switch event {
                    case .message(.text(let text)):
                        item = .init(opcode: .text, payload: Array(text.utf8), enqueuedAt: .now)
                    case .message(.binary(let data)):
                        item = .init(opcode: .binary, payload: Array(data), enqueuedAt: .now)
                    case .ping(let payload): item = .init(opcode: .ping, payload: payload, enqueuedAt: .now)
                    case .pong(let payload): item = .init(opcode: .pong, payload: payload, enqueuedAt: .now)
                    case .close(let body):
                        note(connection, .frame(.received, link, opcode: .close, size: body.bytes.count))
                        note(
                            connection,
                            .closed(by: link == .client ? .client : .upstream, code: body.code, reason: body.reason))
                        connection.closing.open()
                        // Passed on as it came, unless the proxy has closed that link itself already.
                        if !queue.closeQueued {
                            _ = await queue.push(.init(opcode: .close, payload: body.bytes, enqueuedAt: .now))
                        }
                        return .closed
                    }
                    if link == .client, item.opcode == .text, observer != nil {
                        note(connection, .clientText(String(decoding: item.payload, as: UTF8.self)))
                    }
                    note(connection, .frame(.received, link, opcode: item.opcode, size: item.payload.count))
                    guard await queue.push(item) else { return .stopped }
                }
            } catch {
                // Fail this link with the failure's code (§7.1.7), and close the other as going away.
                count { $0.protocolFailures += 1 }
                note(connection, .closed(by: .proxy, code: error.code, reason: error.detail))
                connection.queue(toward: link).pushNow(
                    .init(
                        opcode: .close, payload: ClosePayload(code: error.code, reason: error.detail).bytes,
                        enqueuedAt: .now))
                if link == .client {
                    connection.closeUpstream(reason: "the client broke the protocol")
                } else {
                    // 1014, bad gateway: the upstream, not the client, broke the protocol.
                    let payload = ClosePayload(code: CloseCode(1014), reason: "the upstream broke the protocol")
                    connection.toClient.pushNow(.init(opcode: .close, payload: payload.bytes, enqueuedAt: .now))
                    connection.closing.open()
                }
                return .closed
            }
            connection.noteIncoming(link, decoder.heldByteCount)
            let bytes: [UInt8]
            do {
                bytes = try await stream.read(maximum: 64 * 1024, until: nil)
            } catch {
                if error == .cancelled { return .stopped }
                let detail = Self.detail(of: error)
                note(connection, .reset(link, detail: detail))
                return .sourceEnded(link, detail: detail)
            }
            if bytes.isEmpty {
                note(connection, .reset(link, detail: "EOF"))
                return .sourceEnded(link, detail: "EOF")
            }
            decoder.append(bytes)
            connection.noteIncoming(link, decoder.heldByteCount)
        }
    }

    // MARK: Writing

    /// Writes what is queued toward a link, each frame after the faults that apply to it.
    private func write(_ connection: ProxyConnection, to link: ProxyEvent.Link, from queue: RelayQueue) async
        -> DirectionEnd?
    {
        guard let stream = connection.stream(link) else { return nil }
        // Frames to the upstream are masked (the proxy is its client), with keys no one can predict.
        var random = self.random.split()
        while let item = await queue.next() {
            do {
                try await passFreeze(connection)
            } catch {
                return nil
            }
            let (latency, slicing) = self.link(for: connection.client)
            if latency > .zero {
                _ = await IOReactor.shared.wait(for: .readable, on: -1, until: item.enqueuedAt + latency)
            }
            let frame = FrameEncoder.encode(
                item.opcode, payload: item.payload,
                maskKey: link == .upstream ? FrameEncoder.maskKey(using: &random) : nil)
            if item.opcode == .close {
                // Told before the write: the peer may answer (and its answer be read and told by the
                // other direction's task) before this write returns, and a close must come before its answer.
                let body = try? ClosePayload(parsing: item.payload)
                note(connection, .closeSent(link, code: body?.code, reason: body?.reason ?? ""))
            }
            do throws(TransportError) {
                try await send(frame, on: stream, slicing: slicing)
            } catch {
                if error == .cancelled { return nil }
                if error == .reset(errno: "ETIMEDOUT") { count { $0.stalledWrites += 1 } }
                let detail = Self.detail(of: error)
                note(connection, .reset(link, detail: detail))
                return .destinationFailed(link, detail: detail)
            }
            note(connection, .frame(.sent, link, opcode: item.opcode, size: item.payload.count))
        }
        return nil
    }

    /// Writes a frame whole (in 64 KiB writes) or in slices with pauses; each write has its own
    /// deadline, so a peer that keeps taking bytes is never cut off, and one that stops is.
    private func send(_ frame: [UInt8], on stream: any ByteStream, slicing: Slicing?) async throws(TransportError) {
        let piece = slicing?.bytes ?? 64 * 1024
        var offset = 0
        while offset < frame.count {
            if offset > 0, let pause = slicing?.pause, pause > .zero {
                _ = await IOReactor.shared.wait(for: .readable, on: -1, until: .now + pause)
                if Task.isCancelled { throw .cancelled }
            }
            let end = min(offset + piece, frame.count)
            try await stream.write(Array(frame[offset..<end]), until: .now + configuration.writeTimeout)
            offset = end
        }
    }

    /// Waits while the proxy or this connection's client is frozen.
    private func passFreeze(_ connection: ProxyConnection) async throws(CancellationError) {
        while !(frozen.isOpen && connection.frozen.isOpen) {
            try await frozen.pass()
            try await connection.frozen.pass()
        }
    }

    /// An error as a history line names it: the errno for a reset, else its reason.
    static func detail(of error: TransportError) -> String {
        if case .reset(let errno) = error { return errno }
        return error.reason
    }
}
