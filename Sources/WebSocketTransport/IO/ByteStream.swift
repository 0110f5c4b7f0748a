package import LiveConnection

/// A connected, ordered byte stream: a TCP socket, or TLS over one.
///
/// The WebSocket layer is written once against this, so ws:// and wss:// share every
/// line of protocol code. One reader at a time; writers are serialised by the caller.
package protocol ByteStream: Sendable {
    /// Waits for bytes and returns up to `maximum` of them; empty means the peer closed.
    func read(maximum: Int, until deadline: ContinuousClock.Instant?) async throws(TransportError) -> [UInt8]
    /// Writes every byte, waiting for room as needed.
    func write(_ bytes: [UInt8], until deadline: ContinuousClock.Instant?) async throws(TransportError)
    /// Ends the connection in both directions and wakes anyone waiting on it.
    func shutdown()
    /// Sends end-of-stream after what was written, keeping the read side open (a server's
    /// lingering close: it reads until the client closes, so its last frame is not lost
    /// to a reset).
    func shutdownWrite()
    /// Ends the connection with a TCP reset (the peer sees ECONNRESET) and wakes waiters.
    func reset()
}

extension ByteStream {
    /// Half-closes, then reads and discards until the peer closes too or the deadline
    /// passes: closing with unread input makes the kernel send a reset, which can destroy
    /// our last bytes in flight (a close frame, an HTTP refusal) before the peer reads them.
    package func lingeringClose(until deadline: ContinuousClock.Instant) async {
        shutdownWrite()
        while let bytes = try? await read(maximum: 64 * 1024, until: deadline), !bytes.isEmpty {}
    }
}
