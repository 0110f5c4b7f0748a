// libFuzzer target for the frame decoder. Built by Fuzz/run.sh, never by `swift build`.
//
// Properties checked on every input (a violation traps, and libFuzzer saves the input):
// 1. No crash, no memory error (AddressSanitizer), no allocation above -malloc_limit_mb,
//    whatever lengths the headers announce.
// 2. Chunking does not matter: the bytes fed whole and fed in small chunks give the same
//    events and the same failure, which is what "works on partial input" means.
// 3. A failure is always one of 1002, 1007, 1009.
// 4. The decoder never holds more than it was given.
import LiveConnection

private func decode(_ bytes: [UInt8], chunk: Int, limit: Int) -> ([InboundEvent], ProtocolFailure?) {
    var decoder = FrameDecoder(maxMessageSize: limit)
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

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size > 0 else { return 0 }
    let control = data[0]
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    // The first byte picks a chunk size (1...16) and a size limit (tiny to 1 MiB).
    let chunk = Int(control & 0x0F) + 1
    let limit = [0, 1, 125, 126, 1 << 10, 1 << 16, 1 << 20, 1 << 20][Int(control >> 4) & 7]
    let whole = decode(bytes, chunk: max(1, bytes.count), limit: limit)
    let pieces = decode(bytes, chunk: chunk, limit: limit)
    precondition(whole.0 == pieces.0, "events differ between whole and chunked input")
    precondition(
        whole.1?.code == pieces.1?.code,
        "failure differs: \(String(describing: whole.1)) vs \(String(describing: pieces.1))")
    if let failure = whole.1 {
        precondition(
            [CloseCode.protocolError, .invalidPayload, .messageTooBig].contains(failure.code),
            "unexpected code \(failure.code)")
    }
    return 0
}
