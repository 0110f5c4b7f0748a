package import LiveConnection

/// Encodes frames: a client's masked with the key the caller drew (RFC 6455 §5.3), a
/// server's unmasked (a nil key).
///
/// ```swift
/// var random = SystemRandomSource()
/// let frame = FrameEncoder.encode(.text, payload: Array("hi".utf8),
///                                 maskKey: FrameEncoder.maskKey(using: &random))
/// ```
///
/// The mask key comes from the injected `RandomSource` so that a seeded test can
/// predict every byte on the wire; in production it is the system generator, because the
/// RFC wants keys an intermediary cannot predict.
package enum FrameEncoder {
    /// A fresh 32-bit masking key.
    package static func maskKey(using random: inout some RandomSource) -> UInt32 {
        UInt32(truncatingIfNeeded: random.nextWord() >> 32)
    }

    /// One whole frame: header, mask key (if any) and payload, masked with it. A client
    /// passes a fresh key for every frame; a server passes nil. `compressed` sets RSV1, which
    /// marks the first frame of a permessage-deflate message.
    package static func encode(
        _ opcode: Opcode, payload: some Collection<UInt8>, isFinal: Bool = true, compressed: Bool = false,
        maskKey: UInt32?
    ) -> [UInt8] {
        let length = payload.count
        let maskBit: UInt8 = maskKey == nil ? 0 : 0x80
        var frame: [UInt8] = []
        frame.reserveCapacity(length + 14)
        frame.append((isFinal ? 0x80 : 0) | (compressed ? 0x40 : 0) | opcode.rawValue)
        if length <= 125 {
            frame.append(maskBit | UInt8(length))
        } else if length <= 0xFFFF {
            frame.append(maskBit | 126)
            frame.append(UInt8(length >> 8))
            frame.append(UInt8(length & 0xFF))
        } else {
            frame.append(maskBit | 127)
            for shift in stride(from: 56, through: 0, by: -8) {
                frame.append(UInt8(truncatingIfNeeded: UInt64(length) >> UInt64(shift)))
            }
        }
        guard let maskKey else {
            frame.append(contentsOf: payload)
            return frame
        }
        let key: [UInt8] = [
            UInt8(maskKey >> 24), UInt8(maskKey >> 16 & 0xFF), UInt8(maskKey >> 8 & 0xFF), UInt8(maskKey & 0xFF),
        ]
        frame += key
        let payloadStart = frame.count
        frame.append(contentsOf: payload)
        frame.withUnsafeMutableBufferPointer { buffer in
            applyMask(key, to: UnsafeMutableBufferPointer(rebasing: buffer[payloadStart...]))
        }
        return frame
    }

    /// XORs the payload with the repeating 4-byte key; eight bytes at a time where possible.
    /// Masking is its own inverse, so tests use it to unmask too.
    package static func applyMask(_ key: [UInt8], to payload: UnsafeMutableBufferPointer<UInt8>) {
        precondition(key.count == 4, "a masking key is 4 bytes, not \(key.count)")
        guard let base = payload.baseAddress else { return }
        let count = payload.count
        var wide: UInt64 = 0
        for index in 0..<8 { wide |= UInt64(key[index % 4]) << UInt64(8 * index) }
        var index = 0
        let raw = UnsafeMutableRawPointer(base)
        while index + 8 <= count {
            let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            // Little-endian load: byte i of the word is payload[index + i], matched with key[i % 4].
            raw.storeBytes(of: word ^ wide.littleEndian, toByteOffset: index, as: UInt64.self)
            index += 8
        }
        while index < count {
            base[index] ^= key[index % 4]
            index += 1
        }
    }
}
