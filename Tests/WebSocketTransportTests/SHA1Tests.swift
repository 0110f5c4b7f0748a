import Testing

@testable import WebSocketTransport

func hex(_ bytes: [UInt8]) -> String {
    bytes.map { String($0, radix: 16).leftPadded(to: 2) }.joined()
}

extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}

@Suite("SHA-1")
struct SHA1Tests {
    @Test(
        "matches the RFC 3174 test vectors",
        arguments: [
            ("abc", 1, "a9993e364706816aba3e25717850c26c9cd0d89d"),
            ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 1, "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
            ("a", 1_000_000, "34aa973cd4c4daa4f61eeb2bdbad27316534016f"),
            (
                "0123456701234567012345670123456701234567012345670123456701234567", 10,
                "dea356a2cddd90c7a7ecedc5ebb563934f460452"
            ),
        ])
    func rfc3174(text: String, repeats: Int, digest: String) {
        let message = Array(String(repeating: text, count: repeats).utf8)
        #expect(hex(SHA1.hash(message)) == digest)
    }

    @Test("matches hashlib at every length across the padding boundaries", arguments: 0..<131)
    func lengths(length: Int) {
        let message = (0..<length).map { UInt8(($0 * 7 + 3) % 256) }
        #expect(hex(SHA1.hash(message)) == SHA1LengthFixture.digests[length])
    }

    @Test("computes the RFC 6455 accept example")
    func acceptExample() {
        #expect(HandshakeRequest.accept(forKey: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }
}
