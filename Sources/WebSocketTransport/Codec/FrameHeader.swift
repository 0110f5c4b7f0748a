/// A parsed frame header (RFC 6455 §5.2), validated as far as a header alone allows.
///
/// ```swift
/// let header = try FrameHeader.parse([0x81, 0x05])   // FIN text, 5 bytes, unmasked
/// header?.payloadLength   // 5
/// ```
package struct FrameHeader: Hashable, Sendable {
    package var isFinal: Bool
    package var opcode: Opcode
    /// RSV1, which permessage-deflate uses to mark the first frame of a compressed message (RFC 7692 §6).
    package var isCompressed: Bool
    /// The masking key, if the MASK bit was set (a client never accepts one from a server).
    package var maskKey: UInt32?
    package var payloadLength: UInt64
    /// Bytes the header occupied: 2, 4 or 10, plus 4 with a mask.
    package var headerLength: Int

    package init(
        isFinal: Bool, opcode: Opcode, isCompressed: Bool = false, maskKey: UInt32?, payloadLength: UInt64,
        headerLength: Int
    ) {
        self.isFinal = isFinal
        self.opcode = opcode
        self.isCompressed = isCompressed
        self.maskKey = maskKey
        self.payloadLength = payloadLength
        self.headerLength = headerLength
    }

    /// Parses a header from the start of `bytes`; nil if more bytes are needed.
    ///
    /// Fails with 1002 on reserved bits no extension gave a meaning (RSV1 is permessage-deflate's
    /// when `compression` is on, and then only on data frames), reserved opcodes, fragmented or
    /// oversized (> 125) control frames, and 64-bit lengths with the top bit set.
    /// Masking is reported, not judged: which side may mask is the caller's rule.
    package static func parse(_ bytes: UnsafeBufferPointer<UInt8>, compression: Bool = false) throws(ProtocolFailure)
        -> FrameHeader?
    {
        guard bytes.count >= 2 else { return nil }
        let first = bytes[0]
        let second = bytes[1]
        let reserved = first & (compression ? 0x30 : 0x70)
        guard reserved == 0 else {
            throw .protocolError("reserved bits \(String(reserved >> 4, radix: 2)) set without an extension")
        }
        guard let opcode = Opcode(rawValue: first & 0x0F) else {
            throw .protocolError("reserved opcode \(first & 0x0F)")
        }
        let isCompressed = first & 0x40 != 0
        if isCompressed && opcode.isControl { throw .protocolError("compressed control frame \(opcode)") }
        let isFinal = first & 0x80 != 0
        let masked = second & 0x80 != 0
        var length = UInt64(second & 0x7F)
        var offset = 2
        if opcode.isControl {
            guard isFinal else { throw .protocolError("fragmented control frame \(opcode)") }
            guard length <= 125 else { throw .protocolError("control frame \(opcode) longer than 125 bytes") }
        }
        if length == 126 {
            guard bytes.count >= 4 else { return nil }
            length = UInt64(bytes[2]) << 8 | UInt64(bytes[3])
            offset = 4
        } else if length == 127 {
            guard bytes.count >= 10 else { return nil }
            length = 0
            for index in 2..<10 { length = length << 8 | UInt64(bytes[index]) }
            guard length >> 63 == 0 else { throw .protocolError("64-bit payload length with the top bit set") }
            offset = 10
        }
        var maskKey: UInt32?
        if masked {
            guard bytes.count >= offset + 4 else { return nil }
            maskKey =
                UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16
                | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
            offset += 4
        }
        return FrameHeader(
            isFinal: isFinal, opcode: opcode, isCompressed: isCompressed, maskKey: maskKey, payloadLength: length,
            headerLength: offset)
    }

    /// Convenience for tests and tools: parses from an array.
    package static func parse(_ bytes: [UInt8], compression: Bool = false) throws(ProtocolFailure) -> FrameHeader? {
        let result: Result<FrameHeader?, ProtocolFailure> = bytes.withUnsafeBufferPointer { buffer in
            do throws(ProtocolFailure) { return .success(try parse(buffer, compression: compression)) } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}
