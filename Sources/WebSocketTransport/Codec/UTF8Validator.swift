/// An incremental UTF-8 validator: feed bytes in any split, learn at once when they cannot be UTF-8.
///
/// ```swift
/// var validator = UTF8Validator()
/// validator.consume([0xE2, 0x82])   // true: could still become "€"
/// validator.consume([0xAC])         // true
/// validator.isAtBoundary            // true: a whole code point was seen
/// ```
///
/// Why incremental: a text message may arrive in fragments that split a code point, and
/// RFC 6455 §8.1 asks to fail as soon as the bytes so far cannot be valid (Autobahn 6.x
/// checks this "fail fast"). It follows the well-formed byte sequences of Unicode §3.9
/// table 3-7, so overlong forms, surrogates and code points above U+10FFFF are rejected.
package struct UTF8Validator: Sendable, Hashable {
    /// Continuation bytes still expected for the current code point.
    private var remaining: UInt8 = 0
    /// Allowed range of the next byte (narrower than 80–BF right after E0, ED, F0, F4).
    private var low: UInt8 = 0x80
    private var high: UInt8 = 0xBF

    package init() {}

    /// True when the bytes so far end at a code point boundary (a complete text).
    package var isAtBoundary: Bool { remaining == 0 }

    /// Consumes bytes; false as soon as they cannot be the prefix of valid UTF-8.
    /// After a false the validator's state is unspecified: the message has failed.
    package mutating func consume(_ bytes: some Sequence<UInt8>) -> Bool {
        var result = true
        let handled: Bool? = bytes.withContiguousStorageIfAvailable { buffer in
            result = consume(buffer: buffer)
            return true
        }
        if handled == nil { result = Array(bytes).withUnsafeBufferPointer { consume(buffer: $0) } }
        return result
    }

    /// Consumes a contiguous buffer (the fast path used by the decoder).
    package mutating func consume(buffer: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        let count = buffer.count
        while index < count {
            let byte = buffer[index]
            if remaining == 0 {
                if byte < 0x80 {
                    // ASCII run: skip eight bytes at a time while none has the high bit.
                    index += 1
                    while index + 8 <= count {
                        let word = UnsafeRawPointer(buffer.baseAddress! + index).loadUnaligned(as: UInt64.self)
                        if word & 0x8080_8080_8080_8080 != 0 { break }
                        index += 8
                    }
                    continue
                }
                switch byte {
                case 0xC2...0xDF: (remaining, low, high) = (1, 0x80, 0xBF)
                case 0xE0: (remaining, low, high) = (2, 0xA0, 0xBF)
                case 0xE1...0xEC, 0xEE...0xEF: (remaining, low, high) = (2, 0x80, 0xBF)
                case 0xED: (remaining, low, high) = (2, 0x80, 0x9F)
                case 0xF0: (remaining, low, high) = (3, 0x90, 0xBF)
                case 0xF1...0xF3: (remaining, low, high) = (3, 0x80, 0xBF)
                case 0xF4: (remaining, low, high) = (3, 0x80, 0x8F)
                default: return false
                }
            } else {
                guard byte >= low && byte <= high else { return false }
                remaining -= 1
                (low, high) = (0x80, 0xBF)
            }
            index += 1
        }
        return true
    }
}
