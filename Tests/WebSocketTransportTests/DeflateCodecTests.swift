import Foundation
import LiveConnection
import Testing

@testable import WebSocketTransport

/// Decodes server frames with permessage-deflate negotiated (server-to-client parameters).
func inflateAll(
    _ bytes: [UInt8], chunk: Int = .max, maxMessageSize: Int = 1 << 20, windowBits: Int = 15,
    noContextTakeover: Bool = false
) throws -> ([InboundEvent], ProtocolFailure?) {
    let inflater = try #require(MessageInflater(windowBits: windowBits, noContextTakeover: noContextTakeover))
    var decoder = FrameDecoder(maxMessageSize: maxMessageSize, inflater: inflater)
    var events: [InboundEvent] = []
    var index = 0
    repeat {
        let end = min(bytes.count, index + max(1, min(chunk, bytes.count - index)))
        decoder.append(bytes[index..<end])
        index = end
        do {
            while let event = try decoder.nextEvent() { events.append(event) }
        } catch {
            return (events, error)
        }
    } while index < bytes.count
    return (events, nil)
}

let hello = InboundEvent.message(.text("Hello"))

@Suite("permessage-deflate codec (RFC 7692 §7.2.3's examples)")
struct DeflateCodecTests {
    @Test("a compressed message in one frame (§7.2.3.1), fed whole and byte by byte", arguments: [Int.max, 1])
    func singleFrame(chunk: Int) throws {
        let (events, failure) = try inflateAll([0xC1, 0x07, 0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00], chunk: chunk)
        #expect(failure == nil)
        #expect(events == [hello])
    }

    @Test("a compressed message in two fragments, RSV1 on the first only (§7.2.3.1)")
    func fragmented() throws {
        let frames: [UInt8] = [0x41, 0x03, 0xF2, 0x48, 0xCD, 0x80, 0x04, 0xC9, 0xC9, 0x07, 0x00]
        let (events, failure) = try inflateAll(frames)
        #expect(failure == nil)
        #expect(events == [hello])
    }

    @Test("the second message refers back into the first one's window (§7.2.3.2)")
    func sharedWindow() throws {
        let frames: [UInt8] = [
            0xC1, 0x07, 0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00, 0xC1, 0x05, 0xF2, 0x00, 0x11, 0x00, 0x00,
        ]
        let (events, failure) = try inflateAll(frames)
        #expect(failure == nil)
        #expect(events == [hello, hello])
        // Without context takeover the inflater forgets the window, and the back reference fails.
        let (forgetful, broken) = try inflateAll(frames, noContextTakeover: true)
        #expect(forgetful == [hello])
        #expect(broken?.code == .invalidPayload)
    }

    @Test("a stored (uncompressed) DEFLATE block (§7.2.3.3), an uncompressed message between compressed ones")
    func storedBlockAndPlainMessage() throws {
        let stored: [UInt8] = [0xC1, 0x0B, 0x00, 0x05, 0x00, 0xFA, 0xFF, 0x48, 0x65, 0x6C, 0x6C, 0x6F, 0x00]
        let plain: [UInt8] = [0x81, 0x02, 0x68, 0x69]
        let (events, failure) = try inflateAll(stored + plain + stored)
        #expect(failure == nil)
        #expect(events == [hello, .message(.text("hi")), hello])
    }

    @Test("a BFINAL block ends the DEFLATE stream, and the next message still inflates (§7.2.3.4)")
    func finalBlock() throws {
        let final: [UInt8] = [0xC1, 0x08, 0xF3, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00, 0x00]
        let (events, failure) = try inflateAll(final + final + [0xC1, 0x07, 0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00])
        #expect(failure == nil)
        #expect(events == [hello, hello, hello])
    }

    @Test("two DEFLATE blocks in one message (§7.2.3.5)")
    func twoBlocks() throws {
        let frame: [UInt8] = [
            0xC1, 0x0D, 0xF2, 0x48, 0x05, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xCA, 0xC9, 0xC9, 0x07, 0x00,
        ]
        let (events, failure) = try inflateAll(frame)
        #expect(failure == nil)
        #expect(events == [hello])
    }

    @Test("the deflater writes the RFC's bytes: the tail removed, the window shared unless told not to")
    func deflaterOutput() throws {
        let shared = try #require(MessageDeflater(windowBits: 15, noContextTakeover: false))
        #expect(shared.compress(Array("Hello".utf8)) == [0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00])
        #expect(shared.compress(Array("Hello".utf8)) == [0xF2, 0x00, 0x11, 0x00, 0x00])
        let alone = try #require(MessageDeflater(windowBits: 15, noContextTakeover: true))
        #expect(alone.compress(Array("Hello".utf8)) == [0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00])
        #expect(alone.compress(Array("Hello".utf8)) == [0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00])
        // An empty message is a single 0x00 (§7.2.3.6).
        #expect(alone.compress([]) == [0x00])
        #expect(shared.compress([]) == [0x00])
        #expect(shared.compress([]) == [0x00])
    }

    @Test("what the deflater writes, the inflater reads, for every window size", arguments: 8...15)
    func roundTrip(windowBits: Int) throws {
        let deflater = try #require(MessageDeflater(windowBits: windowBits, noContextTakeover: false))
        let inflater = try #require(MessageInflater(windowBits: windowBits, noContextTakeover: false))
        var random = Xoshiro256StarStar(seed: UInt64(windowBits))
        let block = (0..<300).map { _ in UInt8(truncatingIfNeeded: random.nextWord()) }
        for round in 0..<4 {
            let message = Array((0..<20).map { _ in block }.joined()) + [UInt8(round)]
            let compressed = deflater.compress(message)
            var inflated: [UInt8] = []
            try inflater.inflate(compressed, appendingTo: &inflated, limit: 1 << 20)
            try inflater.finishMessage(appendingTo: &inflated, limit: 1 << 20)
            #expect(inflated == message, "round \(round) with \(windowBits) window bits")
        }
    }

    @Test(
        "a 256-byte window never reaches a repeat further back than 256 bytes", arguments: [(200, true), (257, false)])
    func smallestWindow(period: Int, matched: Bool) throws {
        let deflater = try #require(MessageDeflater(windowBits: 8, noContextTakeover: false))
        var random = Xoshiro256StarStar(seed: 8)
        // Random bytes do not compress at all; only matching a repeat `period` bytes back does.
        let block = (0..<period).map { _ in UInt8(truncatingIfNeeded: random.nextWord()) }
        let message = Array((0..<30).map { _ in block }.joined())
        let compressed = deflater.compress(message)
        #expect((compressed.count < message.count / 5) == matched, "\(compressed.count) of \(message.count) bytes")
    }

    @Test("a compression bomb fails with 1009 once the inflated message passes the limit")
    func bomb() throws {
        // 64 MiB of zeros compress to about 64 KiB: far below the limit on the wire.
        let deflater = try #require(MessageDeflater(windowBits: 15, noContextTakeover: false, level: 9))
        let compressed = deflater.compress([UInt8](repeating: 0, count: 64 << 20))
        #expect(compressed.count < 128 << 10)
        let frame = serverFrame(opcode: 0x2, compressed, rsv: 0b100)
        let (events, failure) = try inflateAll(frame, maxMessageSize: 1 << 20)
        #expect(events.isEmpty)
        #expect(failure?.code == .messageTooBig)
        // Exactly at the limit is fine.
        let (atLimit, none) = try inflateAll(
            serverFrame(opcode: 0x2, deflater.compress([UInt8](repeating: 1, count: 1 << 20)), rsv: 0b100))
        #expect(none == nil)
        #expect(atLimit == [.message(.binary(Data(repeating: 1, count: 1 << 20)))])
    }

    @Test("the limit counts inflated bytes over all fragments")
    func bombAcrossFragments() throws {
        let deflater = try #require(MessageDeflater(windowBits: 15, noContextTakeover: false))
        let compressed = deflater.compress([UInt8](repeating: 7, count: 3000))
        let middle = compressed.count / 2
        let frames =
            serverFrame(opcode: 0x2, Array(compressed[..<middle]), final: false, rsv: 0b100)
            + serverFrame(opcode: 0x0, Array(compressed[middle...]))
        #expect(try inflateAll(frames, maxMessageSize: 2999).1?.code == .messageTooBig)
        #expect(try inflateAll(frames, maxMessageSize: 3000).0 == [.message(.binary(Data(repeating: 7, count: 3000)))])
    }

    @Test(
        "RSV1 is a protocol error on control frames, continuations, and without the extension",
        arguments: [
            serverFrame(opcode: 0x9, [], rsv: 0b100),
            serverFrame(opcode: 0x1, [0xF2, 0x48], final: false, rsv: 0b100)
                + serverFrame(opcode: 0x0, [0xCD, 0xC9, 0xC9, 0x07, 0x00], rsv: 0b100),
            serverFrame(opcode: 0x1, Array("Hello".utf8), rsv: 0b010),
        ])
    func reservedBits(frames: [UInt8]) throws {
        #expect(try inflateAll(frames).1?.code == .protocolError)
    }

    @Test("a compressed frame is refused when compression was not negotiated")
    func notNegotiated() {
        #expect(decodeAll([0xC1, 0x07, 0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00]).1?.code == .protocolError)
    }

    @Test("corrupt DEFLATE data and invalid UTF-8 inside a compressed text message fail with 1007")
    func invalidPayload() throws {
        #expect(try inflateAll(serverFrame(opcode: 0x1, [0xFF, 0xFF, 0xFF], rsv: 0b100)).1?.code == .invalidPayload)
        let deflater = try #require(MessageDeflater(windowBits: 15, noContextTakeover: false))
        let badText = serverFrame(opcode: 0x1, deflater.compress([0x48, 0xC3, 0x28, 0x6F]), rsv: 0b100)
        #expect(try inflateAll(badText).1?.code == .invalidPayload)
    }

    @Test("the encoder sets RSV1 only when asked")
    func encoderBit() throws {
        let frame = FrameEncoder.encode(.text, payload: [0x00], compressed: true, maskKey: 1)
        let header = try #require(try FrameHeader.parse(frame, compression: true))
        #expect(header.isCompressed)
        #expect(frame[0] == 0xC1)
        #expect(FrameEncoder.encode(.text, payload: [0x00], maskKey: 1)[0] == 0x81)
    }
}
