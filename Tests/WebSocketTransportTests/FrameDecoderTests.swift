import Foundation
import LiveConnection
import Testing

@testable import WebSocketTransport

@Suite("Frame decoder")
struct FrameDecoderTests {
    @Test(
        "decodes text and binary at the length-encoding boundaries",
        arguments: [0, 1, 125, 126, 127, 65535, 65536, 100_000])
    func lengths(length: Int) {
        let text = String(repeating: "x", count: length)
        let binary = (0..<length).map { UInt8(truncatingIfNeeded: $0) }
        let bytes = serverFrame(opcode: 1, Array(text.utf8)) + serverFrame(opcode: 2, binary)
        let (events, failure) = decodeAll(bytes, chunk: 4096)
        #expect(failure == nil)
        #expect(events == [.message(.text(text)), .message(.binary(Data(binary)))])
    }

    @Test("decodes the same stream fed one byte at a time")
    func byteByByte() {
        let bytes =
            serverFrame(opcode: 1, Array("hé".utf8), final: false) + serverFrame(opcode: 9, [7])
            + serverFrame(opcode: 0, Array("llo".utf8)) + serverFrame(opcode: 2, Array(repeating: 5, count: 300))
        let (events, failure) = decodeAll(bytes, chunk: 1)
        #expect(failure == nil)
        #expect(events == [.ping([7]), .message(.text("héllo")), .message(.binary(Data(repeating: 5, count: 300)))])
    }

    @Test("reassembles fragments with control frames between them")
    func fragmentsWithControls() {
        let bytes =
            serverFrame(opcode: 2, [1, 2], final: false) + serverFrame(opcode: 9, Array("p".utf8))
            + serverFrame(opcode: 0, [3], final: false) + serverFrame(opcode: 10, [])
            + serverFrame(opcode: 0, [4])
        let (events, failure) = decodeAll(bytes)
        #expect(failure == nil)
        #expect(events == [.ping([0x70]), .pong([]), .message(.binary(Data([1, 2, 3, 4])))])
    }

    @Test(
        "fails with 1002 on what RFC 6455 forbids a server",
        arguments: [
            ("masked frame", serverFrame(opcode: 1, Array("hi".utf8), maskKey: [1, 2, 3, 4])),
            ("RSV1", serverFrame(opcode: 1, [], rsv: 4)),
            ("RSV2", serverFrame(opcode: 2, [], rsv: 2)),
            ("RSV3 on a ping", serverFrame(opcode: 9, [], rsv: 1)),
            ("opcode 3", serverFrame(opcode: 3, [])),
            ("opcode 7", serverFrame(opcode: 7, [])),
            ("opcode 11", serverFrame(opcode: 11, [])),
            ("opcode 15", serverFrame(opcode: 15, [])),
            ("fragmented ping", serverFrame(opcode: 9, [], final: false)),
            ("ping of 126 bytes", serverFrame(opcode: 9, Array(repeating: 0, count: 126))),
            ("continuation with nothing to continue", serverFrame(opcode: 0, [1])),
            ("text inside a fragmented message", serverFrame(opcode: 1, [], final: false) + serverFrame(opcode: 1, [])),
            ("64-bit length with the top bit set", [0x82, 127, 0x80, 0, 0, 0, 0, 0, 0, 1]),
            ("close with a 1-byte body", serverFrame(opcode: 8, [0x03])),
        ])
    func protocolErrors(name: String, bytes: [UInt8]) {
        let (_, failure) = decodeAll(bytes)
        #expect(failure?.code == .protocolError, "\(name): \(String(describing: failure))")
    }

    @Test(
        "fails with 1002 on close codes that may not be sent",
        arguments: [0, 999, 1004, 1005, 1006, 1015, 1016, 2999, 5000, 65535])
    func invalidCloseCodes(code: Int) {
        let (_, failure) = decodeAll(serverFrame(opcode: 8, [UInt8(code >> 8), UInt8(code & 0xFF)]))
        #expect(failure?.code == .protocolError)
    }

    @Test(
        "reports valid close codes with their reason",
        arguments: [1000, 1001, 1003, 1007, 1011, 1014, 3000, 4001, 4999])
    func validCloseCodes(code: Int) {
        let (events, failure) = decodeAll(
            serverFrame(opcode: 8, [UInt8(code >> 8), UInt8(code & 0xFF)] + Array("bye ✓".utf8)))
        #expect(failure == nil)
        #expect(events == [.close(ClosePayload(code: CloseCode(UInt16(code)), reason: "bye ✓"))])
    }

    @Test("reports an empty close as having no code")
    func emptyClose() {
        #expect(decodeAll(serverFrame(opcode: 8, [])).0 == [.close(ClosePayload(code: nil))])
    }

    @Test("yields nothing after a close frame")
    func nothingAfterClose() {
        let (events, _) = decodeAll(serverFrame(opcode: 8, [0x03, 0xE8]) + serverFrame(opcode: 1, Array("late".utf8)))
        #expect(events.count == 1)
    }

    @Test("fails with 1007 on a close reason that is not UTF-8")
    func badCloseReason() {
        #expect(decodeAll(serverFrame(opcode: 8, [0x03, 0xE8, 0xFF])).1?.code == .invalidPayload)
    }

    static let badText: [UInt8] = Array("κόσμε".utf8) + [0xED, 0xA0, 0x80] + Array("edited".utf8)

    @Test(
        "fails with 1007 on invalid UTF-8 split into two fragments at every byte boundary", arguments: 0...badText.count
    )
    func badUTF8Fragmented(split: Int) {
        let bytes =
            serverFrame(opcode: 1, Array(Self.badText[..<split]), final: false)
            + serverFrame(opcode: 0, Array(Self.badText[split...]))
        let (events, failure) = decodeAll(bytes)
        #expect(events.isEmpty)
        #expect(failure?.code == .invalidPayload)
    }

    static let goodText: [UInt8] = Array("κόσμε 𝄞 €".utf8)

    @Test("accepts valid UTF-8 split into two fragments at every byte boundary", arguments: 0...goodText.count)
    func goodUTF8Fragmented(split: Int) {
        let bytes =
            serverFrame(opcode: 1, Array(Self.goodText[..<split]), final: false)
            + serverFrame(opcode: 0, Array(Self.goodText[split...]))
        #expect(decodeAll(bytes).0 == [.message(.text("κόσμε 𝄞 €"))])
    }

    @Test("fails fast: invalid UTF-8 in the first fragment fails before the message ends")
    func failFast() {
        let (_, failure) = decodeAll(serverFrame(opcode: 1, [0x61, 0xC0], final: false))
        #expect(failure?.code == .invalidPayload)
    }

    @Test("fails fast inside a frame: bad UTF-8 fails before the rest of its frame arrives")
    func failFastInsideFrame() {
        var decoder = FrameDecoder()
        let frame = serverFrame(
            opcode: 1, Array("valid start ".utf8) + [0xC0, 0xAF] + Array(repeating: 0x61, count: 200))
        decoder.append(frame[..<20])  // header and the bad bytes; 190 bytes still to come
        #expect(throws: ProtocolFailure.self) { try decoder.nextEvent() }
    }

    @Test("decodes valid text fed one byte at a time inside frames and fragments")
    func earlyValidationKeepsValidText() {
        let text = Array("κόσμε 𝄞 € and some ASCII".utf8)
        let bytes =
            serverFrame(opcode: 1, Array(text[..<7]), final: false) + serverFrame(opcode: 9, [1])
            + serverFrame(opcode: 0, Array(text[7...])) + serverFrame(opcode: 1, text)
        let (events, failure) = decodeAll(bytes, chunk: 1)
        #expect(failure == nil)
        let message = InboundEvent.message(.text(String(decoding: text, as: UTF8.self)))
        #expect(events == [.ping([1]), message, message])
    }

    @Test("fails with 1007 on a text message that ends inside a code point")
    func truncatedText() {
        #expect(decodeAll(serverFrame(opcode: 1, [0xE2, 0x82])).1?.code == .invalidPayload)
    }

    @Test("fails with 1009 on a header announcing more than the limit, before any payload arrives")
    func oversizedHeaderAlone() throws {
        var decoder = FrameDecoder(maxMessageSize: 1024)
        decoder.append([0x82, 127, 0x40, 0, 0, 0, 0, 0, 0, 0])  // 2^62 bytes announced, none sent
        let failure = #expect(throws: ProtocolFailure.self) { try decoder.nextEvent() }
        #expect(failure?.code == .messageTooBig)
        #expect(decoder.bufferedByteCount == 10)
    }

    @Test("fails with 1009 when fragments add up to more than the limit")
    func oversizedFragments() {
        let bytes =
            serverFrame(opcode: 2, Array(repeating: 1, count: 600), final: false)
            + serverFrame(opcode: 0, Array(repeating: 1, count: 600))
        #expect(decodeAll(bytes, maxMessageSize: 1000).1?.code == .messageTooBig)
        #expect(decodeAll(bytes, maxMessageSize: 1200).1 == nil)
    }

    @Test("rethrows its failure and yields nothing more")
    func staysFailed() {
        var decoder = FrameDecoder()
        decoder.append(serverFrame(opcode: 3, []) + serverFrame(opcode: 1, Array("ok".utf8)))
        for _ in 0..<2 {
            #expect(throws: ProtocolFailure.self) { try decoder.nextEvent() }
        }
    }
}
