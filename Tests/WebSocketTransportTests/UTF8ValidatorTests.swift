import Testing

@testable import WebSocketTransport

@Suite("UTF-8 validator")
struct UTF8ValidatorTests {
    static let valid: [[UInt8]] = [
        Array("hello".utf8), Array("κόσμε".utf8), Array("€𝄞 mixed ASCII and more".utf8),
        [0xF4, 0x8F, 0xBF, 0xBF],  // U+10FFFF, the last code point
        [0xED, 0x9F, 0xBF],  // U+D7FF, just below the surrogates
        [0xEE, 0x80, 0x80],  // U+E000, just above them
        [],
    ]
    static let invalid: [[UInt8]] = [
        [0xC0, 0xAF],  // overlong "/"
        [0xE0, 0x80, 0xAF],  // overlong, three bytes
        [0xED, 0xA0, 0x80],  // surrogate U+D800
        [0xF4, 0x90, 0x80, 0x80],  // above U+10FFFF
        [0xF5, 0x80, 0x80, 0x80],
        [0xFF], [0x80],  // a continuation byte with nothing to continue
        Array("κόσμε".utf8) + [0xED, 0xA0, 0x80, 0x65, 0x64, 0x69, 0x74, 0x65, 0x64],  // Autobahn 6.3.1
    ]

    @Test("accepts valid UTF-8 fed at every split point", arguments: valid)
    func acceptsValid(bytes: [UInt8]) {
        for split in 0...bytes.count {
            var validator = UTF8Validator()
            let first = validator.consume(bytes[..<split])
            let second = validator.consume(bytes[split...])
            #expect(first && second, "split at \(split)")
            #expect(validator.isAtBoundary, "split at \(split)")
        }
    }

    @Test("rejects invalid UTF-8 whatever the split", arguments: invalid)
    func rejectsInvalid(bytes: [UInt8]) {
        for split in 0...bytes.count {
            var validator = UTF8Validator()
            let accepted = validator.consume(bytes[..<split]) && validator.consume(bytes[split...])
            #expect(!accepted, "split at \(split) of \(bytes)")
        }
    }

    @Test("reports a code point cut short as not at a boundary")
    func truncated() {
        var validator = UTF8Validator()
        let accepted = validator.consume([0xE2, 0x82])
        #expect(accepted)
        #expect(!validator.isAtBoundary)
    }

    @Test("agrees with the standard library on every two-byte sequence")
    func exhaustiveTwoBytes() {
        for first in 0...255 {
            for second in 0...255 {
                let bytes = [UInt8(first), UInt8(second)]
                var validator = UTF8Validator()
                let ours = validator.consume(bytes) && validator.isAtBoundary
                let library = String(validating: bytes, as: UTF8.self) != nil
                #expect(ours == library, "\(bytes)")
            }
        }
    }

    @Test("agrees with the standard library on every three-byte sequence led by E0–EF or F0–F4")
    func threeAndFourByteLeads() {
        for first in 0xE0...0xF4 {
            for second in 0x70...0xC0 {
                for third in [0x7F, 0x80, 0xBF, 0xC0] {
                    for fourth in [nil, 0x80, 0xBF, 0xC0] as [Int?] {
                        var bytes = [UInt8(first), UInt8(second), UInt8(third)]
                        if let fourth { bytes.append(UInt8(fourth)) }
                        var validator = UTF8Validator()
                        let ours = validator.consume(bytes) && validator.isAtBoundary
                        #expect(ours == (String(validating: bytes, as: UTF8.self) != nil), "\(bytes)")
                    }
                }
            }
        }
    }
}
