import Foundation
public import LiveConnection

public import typealias LiveConnection.Mutex

/// One open WebSocket connection made by ``WebSocketTransport``.
///
/// ```swift
/// let connection = try await transport.open(Endpoint(url: url))
/// try await connection.send(.text("hello"))
/// switch try await connection.receive() {
/// case .message(let message): print(message)
/// case .closed(let code, let reason): print("closed", code, reason)
/// case .pong(let number): print("pong", number)   // answers try await connection.ping(number)
/// }
/// ```
///
/// One task receives in a loop; any tasks may send and ping meanwhile. Receiving is what
/// moves the protocol along: it answers the server's pings, returns the pongs to ours
/// (`TransportEvent.pong(_:)`), and echoes the server's close frame (RFC 6455 §5.5.1). The
/// connection ends in exactly one of the three ways `TransportConnection` names:
/// `receive()` returns `.closed(code:reason:)` after a close frame (1005 when the frame
/// had no code), throws `reset(errno:)` for a reset or an
/// end of stream without a close frame ("EOF"), or never returns while the peer is silent.
/// A peer that breaks the protocol gets a close frame with 1002, 1007 or 1009 and
/// `receive()` throws `protocolViolation(_:_:)`.
public final class WebSocketConnection: TransportConnection {
    /// The subprotocol the server chose, if any (always one of those offered).
    public let subprotocol: String?
    /// The 101 response's headers (names lower-cased), in the order received.
    public let responseHeaders: [Endpoint.Header]
    /// The permessage-deflate parameters agreed in the handshake; nil without compression.
    public let compression: DeflateParameters?

    private let stream: any ByteStream
    private let writeLock = AsyncSerialLock()
    private let state: Mutex<State>
    private let closeTimeout: Duration
    /// Compresses outgoing data messages; used only while holding `writeLock`, so messages
    /// are compressed in the order they go on the wire (context takeover depends on it).
    private let deflater: MessageDeflater?

    private struct State {
        var decoder: FrameDecoder
        var random: any RandomSource & Sendable
        /// Our pings written (or being written) and not yet answered, oldest first.
        var pings: [UInt64] = []
        var closeSent = false
        /// Tasks inside `receive()`; `close()` reads the server's close itself only when there are none.
        var receivers = 0
        /// `close()` is reading the server's close itself: a `receive()` that starts meanwhile
        /// waits for the ending instead of reading beside it (two readers would split frames).
        var closeIsReading = false
        /// `close()` calls waiting for a receiver to see the server's close.
        var endWaiters: [(id: UInt64, continuation: CheckedContinuation<Void, Never>)] = []
        var nextEndWaiter: UInt64 = 0
        var registeringEndWaiters: Set<UInt64> = []
        var cancelledEndWaiters: Set<UInt64> = []
        /// How the connection ended, repeated to every later call.
        var ending: Result<TransportEvent, TransportError>?
    }

    init(
        stream: any ByteStream, subprotocol: String?, leftover: [UInt8], maxMessageSize: Int,
        random: any RandomSource & Sendable, closeTimeout: Duration, compression: DeflateCodec? = nil,
        responseHeaders: [Endpoint.Header] = []
    ) {
        self.stream = stream
        self.subprotocol = subprotocol
        self.responseHeaders = responseHeaders
        self.closeTimeout = closeTimeout
        self.compression = compression?.parameters
        deflater = compression?.deflater
        var decoder = FrameDecoder(maxMessageSize: maxMessageSize, inflater: compression?.inflater)
        decoder.append(leftover)
        state = Mutex(State(decoder: decoder, random: random))
    }

    deinit { stream.shutdown() }

    /// The subprotocol and the response headers, as the manager shows them to the app.
    public var handshake: Handshake { Handshake(subprotocol: subprotocol, headers: responseHeaders) }

    // MARK: Sending

    public func send(_ message: Message) async throws(TransportError) {
        switch message {
        case .text(let text): try await sendFrame(.text, Array(text.utf8))
        case .binary(let data): try await sendFrame(.binary, Array(data))
        }
    }

    /// Writes one frame; `ping` is the number of the ping it carries, recorded under the write
    /// lock so that our record of pings is in the order they go on the wire, the order the
    /// peer answers them in.
    private func sendFrame(
        _ opcode: Opcode, _ payload: [UInt8], until deadline: ContinuousClock.Instant? = nil, ping: UInt64? = nil
    ) async throws(TransportError) {
        try await writeLock.acquire()
        defer { writeLock.release() }
        // Control frames are never compressed (RFC 7692 §6.1).
        let compressed = opcode.isControl ? nil : deflater?.compress(payload)
        let frame: [UInt8]? = state.withLock { state in
            // Nothing may follow our close frame (§5.5.1).
            if state.closeSent || (state.ending != nil && opcode != .close) { return nil }
            if opcode == .close { state.closeSent = true }
            if let ping { state.pings.append(ping) }
            return FrameEncoder.encode(
                opcode, payload: compressed ?? payload, compressed: compressed != nil,
                maskKey: FrameEncoder.maskKey(using: &state.random))
        }
        guard let frame else { throw .notConnected }
        try await stream.write(frame, until: deadline)
    }

    // MARK: Ping

    /// Sends a ping whose payload is `number` (8 bytes, big-endian) and returns once it is
    /// written; ``receive()`` returns its pong as `TransportEvent.pong(_:)`.
    ///
    /// A pong answers its ping and every earlier one (the RFC lets a server answer only the
    /// most recent of several pings), so ``receive()`` reports a pong once and forgets the
    /// pings it answers; a pong whose payload is none of ours is ignored (§5.5.3).
    public func ping(_ number: UInt64) async throws(TransportError) {
        // Recorded before the bytes go out: the pong may be read before the write returns.
        do {
            try await sendFrame(.ping, withUnsafeBytes(of: number.bigEndian) { Array($0) }, ping: number)
        } catch {
            state.withLock { $0.pings.removeAll { $0 == number } }
            throw error
        }
    }

    /// The number of the ping this pong answers, forgetting it and every ping sent before
    /// it; nil for a pong that answers none of ours.
    private func answerPings(_ payload: [UInt8]) -> UInt64? {
        guard payload.count == 8 else { return nil }
        let number = payload.withUnsafeBytes { UInt64(bigEndian: $0.loadUnaligned(as: UInt64.self)) }
        return state.withLock { state in
            guard let index = state.pings.firstIndex(of: number) else { return nil }
            state.pings.removeFirst(index + 1)
            return number
        }
    }

    // MARK: Receiving

    public func receive() async throws(TransportError) -> TransportEvent {
        let closeIsReading = state.withLock { state in
            state.receivers += 1
            return state.closeIsReading
        }
        defer { state.withLock { $0.receivers -= 1 } }
        if closeIsReading {
            await ended()
            guard let ending = state.withLock({ $0.ending }) else { throw .cancelled }
            return try ending.get()
        }
        while true {
            switch decodeNext() {
            case .ended(let ending):
                return try ending.get()
            case .failure(let failure):
                try await fail(with: failure)
            case .event(let event):
                if let result = try await handle(event) { return result }
            case .needsMore:
                let bytes: [UInt8]
                do {
                    bytes = try await stream.read(maximum: 64 * 1024, until: nil)
                } catch {
                    // Cancellation abandons this receive, not the connection.
                    if error == .cancelled { throw error }
                    if let ending = state.withLock({ $0.ending }) { return try ending.get() }
                    end(with: .failure(error))
                    throw error
                }
                // Our own close() may have ended the connection while we waited.
                if bytes.isEmpty, let ending = state.withLock({ $0.ending }) { return try ending.get() }
                if bytes.isEmpty {
                    // The TCP stream ended without a close frame: an abnormal closure (1006).
                    end(with: .failure(.reset(errno: "EOF")))
                    throw TransportError.reset(errno: "EOF")
                }
                state.withLock { $0.decoder.append(bytes) }
            }
        }
    }

    private enum Decoded {
        case ended(Result<TransportEvent, TransportError>)
        case event(InboundEvent)
        case failure(ProtocolFailure)
        case needsMore
    }

    private func decodeNext() -> Decoded {
        state.withLock { state in
            if let ending = state.ending { return .ended(ending) }
            do throws(ProtocolFailure) {
                guard let event = try state.decoder.nextEvent() else { return .needsMore }
                return .event(event)
            } catch {
                return .failure(error)
            }
        }
    }

    /// Acts on one decoded event; returns what `receive()` reports, or nil to keep reading.
    private func handle(_ event: InboundEvent) async throws(TransportError) -> TransportEvent? {
        switch event {
        case .message(let message):
            return .message(message)
        case .ping(let payload):
            // Best effort: if the pong cannot be written, the next read reports why.
            try? await sendFrame(.pong, payload)
            return nil
        case .pong(let payload):
            return answerPings(payload).map(TransportEvent.pong)
        case .close(let body):
            // Echo the code (or an empty close for an empty one), then release the socket.
            try? await sendFrame(.close, ClosePayload(code: body.code).bytes, until: .now + closeTimeout)
            let result = TransportEvent.closed(code: body.code ?? CloseCode(1005), reason: body.reason)
            end(with: .success(result))
            return result
        }
    }

    /// Fails the connection (§7.1.7): a close frame with the failure's code, a lingering
    /// close, then the socket goes.
    private func fail(with failure: ProtocolFailure) async throws(TransportError) -> Never {
        let error = TransportError.protocolViolation(failure.code, failure.detail)
        let deadline = ContinuousClock.now + min(closeTimeout, Self.lingerLimit)
        try? await sendFrame(.close, ClosePayload(code: failure.code).bytes, until: deadline)
        // Closing with the rest of a 2 MiB message unread reset the socket in release and
        // the server never read our close frame; the bytes are not decoded (the connection
        // has failed), and only the reader calls this, so it stays the only reader.
        await stream.lingeringClose(until: deadline)
        end(with: .failure(error))
        throw error
    }

    /// How long a failing connection reads and discards what the peer still sends.
    static let lingerLimit = Duration.seconds(1)

    /// Records the ending, wakes the closes waiting for it and shuts the socket.
    private func end(with ending: Result<TransportEvent, TransportError>) {
        let closers = state.withLock { state in
            if state.ending == nil { state.ending = ending }
            state.pings = []
            let closers = state.endWaiters.map(\.continuation)
            state.endWaiters = []
            return closers
        }
        for continuation in closers { continuation.resume() }
        stream.shutdown()
    }

    // MARK: Closing

    /// Sends a close frame and waits, up to the close timeout, for the server's.
    ///
    /// If another task is in ``receive()``, that task sees the server's close and
    /// returns it, and this waits for it; otherwise this reads until the close frame, the
    /// end of the stream or the timeout itself. Either way the socket is shut down when
    /// this returns (RFC 6455 §7.1.1 wants the server to close TCP first when it can).
    public func close(code: CloseCode, reason: String) async {
        let deadline = ContinuousClock.now + closeTimeout
        let alreadyEnded = state.withLock { $0.ending != nil || $0.closeSent }
        if alreadyEnded {
            stream.shutdown()
            return
        }
        // A writer stuck on a silent peer must not hold the close up: skip the frame then.
        guard writeLock.tryAcquire() else {
            end(with: .success(.closed(code: code, reason: reason)))
            return
        }
        writeLock.release()
        try? await sendFrame(.close, ClosePayload(code: code, reason: reason).bytes, until: deadline)
        let receiverReads = state.withLock { state in
            if state.receivers > 0 { return true }
            state.closeIsReading = true
            return false
        }
        if receiverReads {
            // The receive loop reads the server's close; wait for it, up to the deadline.
            await waitForEnding(until: deadline)
        } else {
            await drainUntilClose(deadline: deadline)
        }
        // Without the server's close (a timeout, a reset), the ending is the close we sent.
        end(with: .success(.closed(code: code, reason: reason)))
    }

    /// Returns when the connection has ended, the deadline has passed or the task is cancelled.
    private func waitForEnding(until deadline: ContinuousClock.Instant) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.ended() }
            group.addTask {
                // No descriptor: this wait ends only at the deadline (or on cancellation).
                _ = await IOReactor.shared.wait(for: .readable, on: -1, until: deadline)
            }
            await group.next()
            group.cancelAll()
        }
    }

    /// Suspends until ``end(with:)`` has run; honours cancellation.
    private func ended() async {
        let id = state.withLock { state in
            state.nextEndWaiter += 1
            state.registeringEndWaiters.insert(state.nextEndWaiter)
            return state.nextEndWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let now = state.withLock { state in
                    state.registeringEndWaiters.remove(id)
                    if state.ending != nil || state.cancelledEndWaiters.remove(id) != nil { return true }
                    state.endWaiters.append((id, continuation))
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let continuation: CheckedContinuation<Void, Never>? = state.withLock { state in
                if let index = state.endWaiters.firstIndex(where: { $0.id == id }) {
                    return state.endWaiters.remove(at: index).continuation
                }
                if state.registeringEndWaiters.contains(id) { state.cancelledEndWaiters.insert(id) }
                return nil
            }
            continuation?.resume()
        }
    }

    /// Reads until the server's close, which becomes the ending every later `receive()` sees,
    /// as it would have been had a receive loop read it. Messages, pings and pongs that follow
    /// our close frame are dropped (nothing may follow it, §5.5.1, and no one reads them).
    private func drainUntilClose(deadline: ContinuousClock.Instant) async {
        while ContinuousClock.now < deadline {
            switch decodeNext() {
            case .ended, .failure: return
            case .event(.close(let body)):
                end(with: .success(.closed(code: body.code ?? CloseCode(1005), reason: body.reason)))
                return
            case .event(.message), .event(.ping), .event(.pong): continue
            case .needsMore:
                guard let bytes = try? await stream.read(maximum: 64 * 1024, until: deadline), !bytes.isEmpty else {
                    return
                }
                state.withLock { $0.decoder.append(bytes) }
            }
        }
    }
}
