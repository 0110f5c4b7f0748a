// libFuzzer target for the frame decoder. Built by Fuzz/run.sh, never by `swift build`.
//
// Properties checked on every input (a violation traps, and libFuzzer saves the input):
// 1. No crash, no memory error (AddressSanitizer), no allocation above -malloc_limit_mb,
//    whatever lengths the headers announce.
// 2. Chunking does not matter: the bytes fed whole and fed in small chunks give the same
//    events and the same failure, which is what "works on partial input" means.
// 3. A failure is always one of 1002, 1007, 1009.
// 4. The decoder never holds more than it was given.
// With permessage-deflate on (the control byte's top bit), -malloc_limit_mb also stands for
// the bomb property: an inflated message never grows far past the size limit.
import LiveConnection

private func decode(_ bytes: [UInt8], chunk: Int, limit: Int, compression: Bool) -> ([InboundEvent], ProtocolFailure?) {
    let inflater = compression ? MessageInflater(windowBits: 15, noContextTakeover: false) : nil
    var decoder = FrameDecoder(maxMessageSize: limit, inflater: inflater)
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
    // The first byte picks a chunk size (1...16), a size limit (tiny to 1 MiB) and compression.
    let chunk = Int(control & 0x0F) + 1
    let limit = [0, 1, 125, 126, 1 << 10, 1 << 16, 1 << 20, 1 << 20][Int(control >> 4) & 7]
    let compression = control & 0x80 != 0
    let whole = decode(bytes, chunk: max(1, bytes.count), limit: limit, compression: compression)
    let pieces = decode(bytes, chunk: chunk, limit: limit, compression: compression)
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
