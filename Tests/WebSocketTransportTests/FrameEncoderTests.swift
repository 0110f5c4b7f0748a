import Foundation
import LiveConnection
import Testing

@testable import WebSocketTransport

@Suite("Frame encoder")
struct FrameEncoderTests {
    @Test("masks the RFC 6455 §5.7 example exactly")
    func rfcExample() {
        // "A single-frame masked text message": 0x81 0x85 0x37 0xfa 0x21 0x3d 0x7f 0x9f 0x4d 0x51 0x58
        let frame = FrameEncoder.encode(.text, payload: Array("Hello".utf8), maskKey: 0x37FA_213D)
        #expect(frame == [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58])
    }

    @Test("round-trips through unmasking at the length boundaries", arguments: [0, 7, 8, 9, 125, 126, 65535, 65536])
    func roundTrip(length: Int) throws {
        var random = Xoshiro256StarStar(seed: UInt64(length))
        let payload = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let key = FrameEncoder.maskKey(using: &random)
        var frame = FrameEncoder.encode(.binary, payload: payload, isFinal: false, maskKey: key)
        let header = try #require(try FrameHeader.parse(frame))
        #expect(header.payloadLength == UInt64(length))
        #expect(header.maskKey == key)
        #expect(!header.isFinal)
        #expect(header.headerLength + length == frame.count)
        let keyBytes = Array(frame[(header.headerLength - 4)..<header.headerLength])
        frame.withUnsafeMutableBufferPointer { buffer in
            FrameEncoder.applyMask(keyBytes, to: UnsafeMutableBufferPointer(rebasing: buffer[header.headerLength...]))
        }
        #expect(Array(frame[header.headerLength...]) == payload)
    }

    @Test("draws masking keys from the injected random source")
    func seededKeys() {
        var first = Xoshiro256StarStar(seed: 9)
        var second = Xoshiro256StarStar(seed: 9)
        let keys = (0..<4).map { _ in FrameEncoder.maskKey(using: &first) }
        #expect(keys == (0..<4).map { _ in FrameEncoder.maskKey(using: &second) })
        #expect(Set(keys).count == 4)
    }

    @Test("truncates a close reason to fit 125 bytes at a character boundary")
    func longCloseReason() {
        let body = ClosePayload(code: .normal, reason: String(repeating: "é", count: 100)).bytes
        #expect(body.count <= 125)
        #expect(String(validating: body[2...], as: UTF8.self) != nil)
    }
}
