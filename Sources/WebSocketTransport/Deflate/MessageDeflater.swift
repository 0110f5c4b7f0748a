import CZlib

import typealias LiveConnection.Mutex

/// Compresses the messages of one direction of a permessage-deflate connection (RFC 7692 §7.2.1).
///
/// ```swift
/// let deflater = try #require(MessageDeflater(windowBits: 15, noContextTakeover: false))
/// deflater.compress(Array("Hello".utf8))   // [0xf2, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00]
/// ```
///
/// Each message is flushed with `Z_SYNC_FLUSH` and the 00 00 FF FF that flush ends with
/// is removed, as the RFC prescribes. With context takeover the window carries over to the
/// next message (a repeated message costs a few bytes); without, the stream is reset after
/// every message. The caller must compress messages in the order they go on the wire.
///
/// zlib cannot deflate raw data with a 256-byte window (8 bits) and takes 9 instead; that
/// is still safe for a peer with 8, because zlib keeps 262 bytes of lookahead inside its
/// window and so never matches further back than 512 − 262 = 250 bytes (a test holds it to that).
package final class MessageDeflater: Sendable {
    /// The window the peer's inflater has, 8...15.
    package let windowBits: Int
    /// Forget the window after every message (the peer asked, or we promised).
    package let noContextTakeover: Bool
    private let stream: Mutex<ZlibStream>

    /// Nil if zlib cannot set up a stream (no memory) or a value is out of range
    /// (`windowBits` 8...15, `level` 0...9, `memoryLevel` 1...9).
    package init?(windowBits: Int, noContextTakeover: Bool, level: Int = 6, memoryLevel: Int = 8) {
        guard (8...15).contains(windowBits), (0...9).contains(level), (1...9).contains(memoryLevel) else { return nil }
        guard
            let stream = ZlibStream(
                deflateLevel: level, windowBits: max(windowBits, 9), memoryLevel: memoryLevel,
                strategy: Z_DEFAULT_STRATEGY)
        else { return nil }
        self.windowBits = windowBits
        self.noContextTakeover = noContextTakeover
        self.stream = Mutex(stream)
    }

    deinit { stream.withLock { $0.release(inflating: false) } }

    /// The compressed payload of one message, without the 00 00 FF FF tail.
    package func compress(_ message: some Collection<UInt8>) -> [UInt8] {
        let bytes = Array(message)
        return stream.withLock { stream in
            let z = stream.pointer
            var output: [UInt8] = []
            output.reserveCapacity(Int(deflateBound(z, uLong(bytes.count))) + 8)
            bytes.withUnsafeBufferPointer { input in
                z.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                z.pointee.avail_in = uInt(input.count)
                withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 16 * 1024) { chunk in
                    repeat {
                        z.pointee.next_out = chunk.baseAddress
                        z.pointee.avail_out = uInt(chunk.count)
                        let status = deflate(z, Z_SYNC_FLUSH)
                        // Z_BUF_ERROR only says a call made no progress; anything else is a broken stream.
                        precondition(
                            status == Z_OK || status == Z_BUF_ERROR, "deflate failed with zlib status \(status)")
                        output.append(
                            contentsOf: UnsafeBufferPointer(
                                rebasing: chunk[..<(chunk.count - Int(z.pointee.avail_out))]))
                    } while z.pointee.avail_out == 0
                }
                z.pointee.next_in = nil
            }
            // zlib writes nothing for an empty message right after a flush; the RFC's empty message is
            // one 0x00 byte (§7.2.3.6), an empty stored block once the receiver appends the tail.
            if output.isEmpty { return [0x00] }
            precondition(output.suffix(4) == MessageInflater.tail[...], "a sync flush ends with 00 00 FF FF")
            output.removeLast(4)
            if noContextTakeover { deflateReset(z) }
            return output
        }
    }
}
