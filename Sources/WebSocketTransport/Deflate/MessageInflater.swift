import CZlib

import typealias LiveConnection.Mutex

/// Inflates the compressed messages of one direction of a permessage-deflate connection
/// (RFC 7692 §7.2.2), a frame's payload at a time, with a limit on what comes out.
///
/// ```swift
/// let inflater = try #require(MessageInflater(windowBits: 15, noContextTakeover: false))
/// var message: [UInt8] = []
/// try inflater.inflate([0xf2, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00], appendingTo: &message, limit: 1 << 20)
/// try inflater.finishMessage(appendingTo: &message, limit: 1 << 20)   // message == "Hello"
/// ```
///
/// The limit applies to the *inflated* bytes and is checked as they come out of zlib,
/// 16 KiB at a time: a compression bomb (a few KiB that inflate to gigabytes) fails with
/// 1009 after at most the limit plus one chunk has been produced, whatever its ratio.
/// Role-neutral: a client inflates the server's messages with the server's window and
/// context-takeover parameters, a server the client's.
package final class MessageInflater: Sendable {
    /// The sender's LZ77 window, 8...15 (a window of 2^bits bytes).
    package let windowBits: Int
    /// The sender starts every message with an empty window, so the inflater may too.
    package let noContextTakeover: Bool
    private let stream: Mutex<ZlibStream>

    /// The 4 bytes every sender strips from the end of a compressed message (§7.2.1).
    static let tail: [UInt8] = [0x00, 0x00, 0xFF, 0xFF]
    private static let chunkSize = 16 * 1024

    /// Nil if zlib cannot set up a stream (no memory) or `windowBits` is outside 8...15.
    package init?(windowBits: Int, noContextTakeover: Bool) {
        guard (8...15).contains(windowBits), let stream = ZlibStream(inflateWindowBits: windowBits) else { return nil }
        self.windowBits = windowBits
        self.noContextTakeover = noContextTakeover
        self.stream = Mutex(stream)
    }

    deinit { stream.withLock { $0.release(inflating: true) } }

    /// Inflates one frame's payload of a compressed message, appending the output to `message`.
    ///
    /// Fails with 1009 once `message` would grow past `limit`, and with 1007 when the
    /// payload is not valid DEFLATE data.
    package func inflate(
        _ payload: some Collection<UInt8>, appendingTo message: inout [UInt8], limit: Int
    ) throws(ProtocolFailure) {
        let result: Result<Void, ProtocolFailure> = stream.withLock { stream in
            let bytes = Array(payload)
            return bytes.withUnsafeBufferPointer { input in
                Self.run(input, through: &stream, appendingTo: &message, limit: limit)
            }
        }
        try result.get()
    }

    /// Ends a message: inflates the 00 00 FF FF tail its sender removed, then forgets the
    /// window if the sender does not take context over.
    package func finishMessage(appendingTo message: inout [UInt8], limit: Int) throws(ProtocolFailure) {
        let result: Result<Void, ProtocolFailure> = stream.withLock { stream in
            let outcome = Self.tail.withUnsafeBufferPointer { input in
                Self.run(input, through: &stream, appendingTo: &message, limit: limit)
            }
            // A message that ended the DEFLATE stream with BFINAL (§7.2.3.4) needs a fresh one;
            // with context takeover it keeps the window, so later messages may refer back to it.
            if stream.ended || noContextTakeover { stream.restartInflate(keepingWindow: !noContextTakeover) }
            return outcome
        }
        try result.get()
    }

    private static func run(
        _ input: UnsafeBufferPointer<UInt8>, through stream: inout ZlibStream, appendingTo message: inout [UInt8],
        limit: Int
    ) -> Result<Void, ProtocolFailure> {
        // Bytes after the end of a DEFLATE stream (a BFINAL block) carry nothing: the tail, at most.
        guard !stream.ended, let base = input.baseAddress, !input.isEmpty else { return .success(()) }
        let z = stream.pointer
        z.pointee.next_in = UnsafeMutablePointer(mutating: base)
        z.pointee.avail_in = uInt(input.count)
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: chunkSize) { chunk in
            while true {
                z.pointee.next_out = chunk.baseAddress
                z.pointee.avail_out = uInt(chunkSize)
                let status = CZlib.inflate(z, Z_NO_FLUSH)
                let produced = chunkSize - Int(z.pointee.avail_out)
                if produced > 0 {
                    guard message.count + produced <= limit else {
                        z.pointee.next_in = nil
                        return .failure(.tooBig("compressed message inflates past the limit of \(limit) bytes"))
                    }
                    message.append(contentsOf: UnsafeBufferPointer(rebasing: chunk[..<produced]))
                }
                switch status {
                case Z_OK where z.pointee.avail_in > 0 || z.pointee.avail_out == 0:
                    continue
                case Z_OK, Z_BUF_ERROR:
                    // All input consumed and no output pending.
                    z.pointee.next_in = nil
                    return .success(())
                case Z_STREAM_END:
                    stream.ended = true
                    z.pointee.next_in = nil
                    return .success(())
                default:
                    let detail = z.pointee.msg.map { String(cString: $0) } ?? "zlib status \(status)"
                    z.pointee.next_in = nil
                    return .failure(.invalidPayload("compressed message is not valid DEFLATE data: \(detail)"))
                }
            }
        }
    }
}

/// A heap-allocated `z_stream` (zlib keeps a pointer back to it, so it must not move).
struct ZlibStream: ~Copyable {
    let pointer: UnsafeMutablePointer<z_stream>
    /// The inflater reached the end of a DEFLATE stream and ignores input until restarted.
    var ended = false

    init?(inflateWindowBits windowBits: Int) {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: z_stream())
        // Negative window bits: raw DEFLATE, no zlib header or checksum (§7.2.1).
        guard liveconnection_inflate_init2(pointer, -Int32(windowBits)) == Z_OK else {
            pointer.deallocate()
            return nil
        }
    }

    init?(deflateLevel level: Int, windowBits: Int, memoryLevel: Int, strategy: Int32) {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: z_stream())
        guard
            liveconnection_deflate_init2(pointer, Int32(level), -Int32(windowBits), Int32(memoryLevel), strategy)
                == Z_OK
        else {
            pointer.deallocate()
            return nil
        }
    }

    /// Starts a new DEFLATE stream; keeping the window lets the next message refer back to this one.
    mutating func restartInflate(keepingWindow: Bool) {
        ended = false
        guard keepingWindow else {
            inflateReset(pointer)
            return
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1 << 15) { window in
            var length: uInt = 0
            let saved = inflateGetDictionary(pointer, window.baseAddress, &length) == Z_OK
            inflateReset(pointer)
            if saved && length > 0 { inflateSetDictionary(pointer, window.baseAddress, length) }
        }
    }

    func release(inflating: Bool) {
        if inflating { inflateEnd(pointer) } else { deflateEnd(pointer) }
        pointer.deallocate()
    }
}
