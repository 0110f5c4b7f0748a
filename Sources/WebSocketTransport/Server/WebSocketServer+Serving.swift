import LiveConnection

/// One connection's life on the server: handshake, then a reader and a writer task until
/// the close handshake, a failure or a reset ends it.
extension WebSocketServer {
    func serve(_ connection: ServerConnection) async {
        defer { unregister(connection) }
        guard let (leftover, compression) = await handshake(connection) else {
            let timedOut = connection.endReason == Self.handshakeTimedOut
            connection.noteEnd("handshake not completed")
            // Told only of an attempt it saw (a request head), and only once (an answered refusal told it already).
            if connection.request != nil { connection.observe(.abandoned(reason: timedOut ? "timeout" : "abandoned")) }
            connection.stream.shutdown()
            connection.observe(.done)
            return
        }
        connection.observe(.opened)
        await handler.opened(connection)
        if let close = state.withLock({ $0.acceptThenClose }), let code = close.code {
            connection.close(code: code, reason: close.reason)
        }
        let closeTimeout = configuration.closeTimeout
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await self.readFrames(connection, leftover: leftover, inflater: compression?.inflater)
            }
            group.addTask { await self.writeFrames(connection, deflater: compression?.deflater) }
            group.addTask { await self.dropWhenIdle(connection) }
            // Whichever ends first, the other gets the close timeout to finish its part
            // (flush the last close frame, or read the client's answer to ours).
            await group.next()
            group.addTask { _ = await IOReactor.shared.wait(for: .readable, on: -1, until: .now + closeTimeout) }
            await group.next()
            group.cancelAll()
        }
        connection.noteEnd("ended")
        connection.outbox.end()
        connection.stream.shutdown()
        connection.observe(.done)
        await handler.closed(connection)
    }

    // MARK: Handshake

    /// Reads the request head within the handshake timeout and answers it; returns the
    /// bytes after the head and the compression agreed, or nil when the connection is not opened.
    private func handshake(_ connection: ServerConnection) async -> ([UInt8], DeflateCodec?)? {
        let deadline = ContinuousClock.now + configuration.handshakeTimeout
        var stream = connection.stream
        do throws(TransportError) {
            if let tls = configuration.tls, let socket = stream as? TCPSocket {
                stream = try await TLSStream.accept(over: socket, context: tls, until: deadline)
                connection.replaceStream(stream)
            }
            var received: [UInt8] = []
            while true {
                let parsed: (UpgradeRequest, Int)?
                do throws(UpgradeRefusal) {
                    if let (head, consumed) = try UpgradeRequest.head(of: received) {
                        connection.noteHead()
                        if !head.tokens(of: "upgrade").contains("websocket"),
                            let response = await plainAnswer(head, Array(received[consumed...]), stream, deadline)
                        {
                            await send(response, on: stream)
                            return nil
                        }
                        parsed = (try UpgradeRequest(head), consumed)
                    } else {
                        parsed = nil
                    }
                } catch {
                    state.withLock { $0.statistics.handshakesRefused += 1 }
                    await refuse(stream, with: error, deadline: deadline)
                    return nil
                }
                if let (request, consumed) = parsed {
                    connection.noteRequest(request)
                    connection.observe(.requested)
                    return try await answer(request, leftover: Array(received[consumed...]), on: connection, deadline)
                }
                let bytes = try await stream.read(maximum: 4096, until: deadline)
                if bytes.isEmpty { return nil }
                received += bytes
            }
        } catch {
            if error == .reset(errno: "ETIMEDOUT") {
                state.withLock { $0.statistics.handshakeTimeouts += 1 }
                connection.noteEnd(Self.handshakeTimedOut)
            }
            return nil
        }
    }

    /// The end reason of a connection whose request did not arrive within the handshake timeout.
    static let handshakeTimedOut = "handshake timed out"

    /// Waits at the freeze and hang gates, watching the socket meanwhile: a client that gives
    /// up a hung handshake is seen leaving when it leaves, not at the thaw. Bytes that arrive
    /// meanwhile (frames sent ahead of the 101) join `leftover`. False when the client left.
    private func passGates(_ connection: ServerConnection, leftover: inout [UInt8]) async -> Bool {
        enum Outcome: Sendable {
            case passed, bytes([UInt8]), left, cancelled
        }
        while !(frozen.isOpen && handshakes.isOpen) {
            let outcomes: [Outcome] = await withTaskGroup(of: Outcome.self) { group in
                group.addTask {
                    do {
                        try await self.frozen.pass()
                        try await self.handshakes.pass()
                        return .passed
                    } catch {
                        return .cancelled
                    }
                }
                group.addTask {
                    do throws(TransportError) {
                        let bytes = try await connection.stream.read(maximum: 4096, until: nil)
                        return bytes.isEmpty ? .left : .bytes(bytes)
                    } catch {
                        return error == .cancelled ? .cancelled : .left
                    }
                }
                var outcomes: [Outcome] = []
                if let first = await group.next() { outcomes.append(first) }
                group.cancelAll()
                // The other one too: a read that finished as the gate opened keeps its bytes.
                for await outcome in group { outcomes.append(outcome) }
                return outcomes
            }
            var passed = false
            for outcome in outcomes {
                switch outcome {
                case .passed: passed = true
                case .bytes(let bytes): leftover += bytes
                case .left: return false
                case .cancelled: break
                }
            }
            if Task.isCancelled { return false }
            if passed { break }
        }
        return true
    }

    /// Reads a plain request's body (`Content-Length`, at most 64 KiB) and asks the handler for
    /// its answer. The body's own failures are answered here, by the server that received it,
    /// before the handler or the upgrade checks see the request: a chunked body 411 (a control
    /// endpoint needs no more than `Content-Length`; ignoring it would read its chunks as the
    /// next request), a bad or repeated length 400, a large one 413, one that does not arrive
    /// before the handshake deadline 408. Nil when the client left, or the handler does not
    /// answer plain requests.
    private func plainAnswer(
        _ head: HTTPHead, _ already: [UInt8], _ stream: any ByteStream, _ deadline: ContinuousClock.Instant
    ) async -> HTTPResponse? {
        let refusal: HTTPResponse? = {
            if !head.values(of: "transfer-encoding").isEmpty {
                return HTTPResponse(status: 411, body: "a request body needs Content-Length (chunked is not read)\n")
            }
            let lengths = Set(head.values(of: "content-length"))
            guard lengths.count <= 1 else { return HTTPResponse(status: 400, body: "conflicting Content-Length\n") }
            guard let text = lengths.first else { return nil }
            guard !text.isEmpty, text.utf8.allSatisfy({ (48...57).contains($0) }), text.utf8.count <= 18,
                let length = Int(text)
            else { return HTTPResponse(status: 400, body: "Content-Length is not a number\n") }
            guard length <= 65_536 else { return HTTPResponse(status: 413, body: "body larger than 65536 bytes\n") }
            return nil
        }()
        if let refusal {
            state.withLock { $0.statistics.badBodies += 1 }
            return refusal
        }
        let length = head.values(of: "content-length").first.flatMap { Int($0) } ?? 0
        var body = already
        while body.count < length {
            let bytes: [UInt8]
            do throws(TransportError) {
                bytes = try await stream.read(maximum: length - body.count, until: deadline)
            } catch {
                guard error == .reset(errno: "ETIMEDOUT") else { return nil }
                state.withLock { $0.statistics.badBodies += 1 }
                return HTTPResponse(status: 408, body: "the request body did not arrive in time\n")
            }
            if bytes.isEmpty { return nil }
            body += bytes
        }
        return await handler.plainRequest(head, body: Array(body.prefix(length)))
    }

    /// Writes a plain answer, then closes lingering (so it is not lost to a reset). It goes out
    /// in slices of at most 64 KiB, a made body piece by piece as chunks, each write with its
    /// own deadline: a client that keeps reading gets all of it, however long that takes; one
    /// that stops for a handshake timeout is reset (a chunked answer then lacks its last chunk).
    private func send(_ response: HTTPResponse, on stream: any ByteStream) async {
        do throws(TransportError) {
            try await write(response.pieces == nil ? response.bytes : response.head, on: stream)
            if let pieces = response.pieces {
                var index = 0
                while let piece = pieces(index) {
                    index += 1
                    if !piece.isEmpty { try await write(HTTPResponse.chunk(piece), on: stream) }
                }
                try await write(HTTPResponse.chunk([]), on: stream)
            }
        } catch {
            stream.reset()
            return
        }
        await stream.lingeringClose(until: .now + configuration.closeTimeout)
    }

    private func write(_ bytes: [UInt8], on stream: any ByteStream) async throws(TransportError) {
        var offset = 0
        while offset < bytes.count {
            let end = min(offset + 65_536, bytes.count)
            try await stream.write(Array(bytes[offset..<end]), until: .now + configuration.handshakeTimeout)
            offset = end
        }
    }

    /// Applies the fault controls and the handler's decision to a valid request.
    private func answer(
        _ request: UpgradeRequest, leftover: [UInt8], on connection: ServerConnection,
        _ deadline: ContinuousClock.Instant
    ) async throws(TransportError) -> ([UInt8], DeflateCodec?)? {
        // A frozen server, or hung handshakes, leave the client waiting: its connect timeout decides.
        var leftover = leftover
        guard await passGates(connection, leftover: &leftover) else { return nil }
        if let status = state.withLock({ $0.handshakeStatus }) {
            state.withLock { $0.statistics.handshakesRefused += 1 }
            connection.observe(.refused(status: status))
            await refuse(
                connection.stream, with: UpgradeRefusal(status: status, reason: "refused by the test server"),
                deadline: .now + configuration.closeTimeout)
            return nil
        }
        switch await handler.handshake(request) {
        case .refuse(let refusal):
            state.withLock { $0.statistics.handshakesRefused += 1 }
            connection.observe(.refused(status: refusal.status))
            await refuse(connection.stream, with: refusal, deadline: .now + configuration.closeTimeout)
            return nil
        case .accept(let subprotocol):
            let compression = compression(for: request)
            await delay(by: currentLatency * 2)
            // Open before the 101 leaves: a client may act on it at once (a test closes or resets
            // every connection as soon as its client reports open), and the fault controls must
            // find the connection then. A close queued now goes out after the 101.
            connection.markOpen(request, compression: compression?.codec.parameters)
            let extensions = compression.map { [$0.response] } ?? []
            try await connection.stream.write(
                request.acceptance(subprotocol: subprotocol, extensions: extensions), until: nil)
            state.withLock { $0.statistics.handshakesCompleted += 1 }
            return (leftover, compression?.codec)
        }
    }

    /// The permessage-deflate this connection uses, with the answer that says so; nil when
    /// compression is not configured, the client offered nothing valid, or zlib has no
    /// memory for the streams: then the offer is declined and the connection opens without
    /// it, because compression is optional and the client asked for a WebSocket.
    private func compression(for request: UpgradeRequest) -> (codec: DeflateCodec, response: WebSocketExtension)? {
        guard let options = configuration.compression, let acceptance = options.answer(to: request),
            let codec = try? DeflateCodec(
                acceptance.agreed, sending: .serverToClient, level: options.compressionLevel,
                memoryLevel: options.memoryLevel)
        else { return nil }
        return (codec, acceptance.response)
    }

    /// Sends an HTTP refusal and closes after it (lingering, so the response is not lost to a reset).
    private func refuse(_ stream: any ByteStream, with refusal: UpgradeRefusal, deadline: ContinuousClock.Instant)
        async
    {
        try? await stream.write(refusal.response, until: deadline)
        await stream.lingeringClose(until: .now + configuration.closeTimeout)
    }

    /// Waits out an added latency (cancellable).
    func delay(by duration: Duration) async {
        guard duration > .zero else { return }
        _ = await IOReactor.shared.wait(for: .readable, on: -1, until: .now + duration)
    }
}
