// libFuzzer target for the frame decoder in the server role (client-masked frames).
// Built by `Fuzz/run.sh RUNS server`, never by `swift build`.
//
// Properties checked on every input (a violation traps, and libFuzzer saves the input):
// 1. No crash, no memory error, no allocation above -malloc_limit_mb, in the server role.
// 2. Chunking does not matter, as for the client role.
// 3. The roles are mirror images: the input decoded as a client must give exactly the
//    events and failure code of the same frames with their masking toggled (masked frames
//    unmasked, unmasked frames masked with a key from the input) decoded as a server. This
//    checks the server's unmasking — including a key phase that carries across partial
//    input — against the client path that Autobahn and the first fuzzer already cover.
import LiveConnection

private func decode(_ bytes: [UInt8], role: EndpointRole, chunk: Int, limit: Int) -> ([InboundEvent], ProtocolFailure?)
{
    var decoder = FrameDecoder(maxMessageSize: limit, role: role)
    var events: [InboundEvent] = []
    var index = 0
    while index < bytes.count {
        let end = min(bytes.count, index + chunk)
        decoder.append(bytes[index..<end])
        index = end
        precondition(decoder.bufferedByteCount <= index, "decoder holds more than it was given")
        do {
            while let event = try decoder.nextEvent() { events.append(event) }
        } catch {
            return (events, error)
        }
    }
    return (events, nil)
}

/// Toggles the masking of each frame; returns the prefix of `bytes` it covered (frames up to
/// the first incomplete header) and the toggled version of that prefix.
private func toggleMasking(_ bytes: [UInt8], key: [UInt8]) -> (original: [UInt8], toggled: [UInt8]) {
    var index = 0
    var toggled: [UInt8] = []
    while index + 2 <= bytes.count {
        let first = bytes[index]
        let second = bytes[index + 1]
        let masked = second & 0x80 != 0
        var length = UInt64(second & 0x7F)
        var lengthBytes = 0
        if length == 126 { lengthBytes = 2 } else if length == 127 { lengthBytes = 8 }
        let headerEnd = index + 2 + lengthBytes + (masked ? 4 : 0)
        guard headerEnd <= bytes.count else { break }
        if lengthBytes > 0 {
            length = 0
            for offset in 0..<lengthBytes { length = length << 8 | UInt64(bytes[index + 2 + offset]) }
        }
        let frameKey = masked ? Array(bytes[headerEnd - 4..<headerEnd]) : key
        toggled.append(first)
        toggled.append(second ^ 0x80)
        toggled += bytes[index + 2..<index + 2 + lengthBytes]
        if !masked { toggled += key }
        let available = UInt64(bytes.count - headerEnd)
        let present = Int(min(length, available))
        var payload = Array(bytes[headerEnd..<headerEnd + present])
        // Masking is its own inverse: the same XOR masks a clear payload or unmasks a masked one.
        payload.withUnsafeMutableBufferPointer { FrameEncoder.applyMask(frameKey, to: $0) }
        toggled += payload
        index = headerEnd + present
        if UInt64(present) < length { break }
    }
    return (Array(bytes[..<index]), toggled)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size > 4 else { return 0 }
    let control = data[0]
    let key = Array(UnsafeBufferPointer(start: data + 1, count: 4))
    let bytes = Array(UnsafeBufferPointer(start: data + 5, count: size - 5))
    let chunk = Int(control & 0x0F) + 1
    let limit = [0, 1, 125, 126, 1 << 10, 1 << 16, 1 << 20, 1 << 20][Int(control >> 4) & 7]
    let whole = decode(bytes, role: .server, chunk: max(1, bytes.count), limit: limit)
    let pieces = decode(bytes, role: .server, chunk: chunk, limit: limit)
    precondition(whole.0 == pieces.0, "events differ between whole and chunked input")
    precondition(whole.1?.code == pieces.1?.code, "failure differs between whole and chunked input")
    if let failure = whole.1 {
        precondition(
            [CloseCode.protocolError, .invalidPayload, .messageTooBig].contains(failure.code),
            "unexpected code \(failure.code)")
    }
    let (original, toggled) = toggleMasking(bytes, key: key)
    let asClient = decode(original, role: .client, chunk: chunk, limit: limit)
    let asServer = decode(toggled, role: .server, chunk: chunk, limit: limit)
    precondition(asClient.0 == asServer.0, "client and server roles decode mirrored frames differently")
    precondition(
        asClient.1?.code == asServer.1?.code,
        "client and server roles fail differently: \(String(describing: asClient.1)) vs \(String(describing: asServer.1))"
    )
    return 0
}
