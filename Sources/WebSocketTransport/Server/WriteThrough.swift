/// What lets a sender write a frame itself, on its own thread, while the connection's writer
/// task waits with nothing queued.
///
/// ```swift
/// connection.outbox.allowWriteThrough(WriteThrough(socket: socket, deflater: nil, isOpen: { true }))
/// connection.send(.text("hi"))   // written at once if the writer is idle, else queued for it
/// ```
///
/// Why: handing every frame to the writer task wakes it on another pool thread. An echo
/// server paid two futex calls per round trip for that hand-off, about as much as the rest of
/// its work. The sender does what the writer would have done, in the same order: the claim
/// on the outbox makes it the only writer (frames queued meanwhile wait behind it), so the
/// deflater still sees messages in wire order. It never waits: a socket that takes only part
/// of the frame gets the rest from the writer task, which then waits for room as before, and
/// the sends after it queue (the queue limit and the buffer budget count them as before).
struct WriteThrough: Sendable {
    /// Plain TCP only: a TLS stream's writes go through its own buffers, and stay with the writer.
    let socket: TCPSocket
    /// The connection's permessage-deflate compressor, shared with the writer task (never at once).
    let deflater: MessageDeflater?
    /// False while the server is frozen or delays frames (the latency fault): the frame then goes
    /// to the writer task, which waits that out.
    let isOpen: @Sendable () -> Bool
}

extension ServerConnection {
    /// Queues a data message or a pong, or writes it at once when the writer is idle
    /// (``WriteThrough``). Returns what ``Outbox/enqueue(_:_:)`` returns; a frame written
    /// through was accepted.
    func deliver(_ payload: [UInt8], _ kind: Outbox.Item.Kind) -> Outbox.Refusal? {
        guard let through = outbox.claimIdleWriter(kind, payload.count) else { return outbox.enqueue(payload, kind) }
        let item = Outbox.Item(payload: payload, kind: kind, enqueuedAt: .now)
        // Frozen or delayed: the writer waits it out. Silenced: the writer drops it.
        guard through.isOpen(), !isSilenced else {
            outbox.releaseWriter(handingOver: item)
            return nil
        }
        // Control frames are never compressed (RFC 7692 §6.1).
        let compressed = item.isData ? through.deflater?.compress(payload) : nil
        let frame = FrameEncoder.encode(
            item.opcode, payload: compressed ?? payload, compressed: compressed != nil, maskKey: nil)
        // Told as it leaves, before the client can answer it (as the writer does).
        if observer != nil { observe(WebSocketServer.observation(of: item)) }
        var sent = 0
        while sent < frame.count, case .transferred(let count) = through.socket.trySend(frame[sent...]) {
            sent += count
        }
        if sent == frame.count {
            touch()
            outbox.releaseWriter(handingOver: nil)
        } else {
            // Full socket, or an error: the writer writes the rest, or meets the error and ends.
            outbox.releaseWriter(
                handingOver: Outbox.Item(
                    payload: Array(frame[sent...]), kind: kind, enqueuedAt: .now, isRestOfFrame: true))
        }
        return nil
    }
}
