import LiveConnection

@testable import WebSocketTransport

/// Builds raw server frames, including ones no correct server would send.
func serverFrame(
    opcode: UInt8, _ payload: [UInt8], final: Bool = true, rsv: UInt8 = 0, maskKey: [UInt8]? = nil,
    declaredLength: UInt64? = nil
) -> [UInt8] {
    var frame: [UInt8] = [(final ? 0x80 : 0) | rsv << 4 | opcode]
    let length = declaredLength ?? UInt64(payload.count)
    let maskBit: UInt8 = maskKey == nil ? 0 : 0x80
    if length <= 125 {
        frame.append(maskBit | UInt8(length))
    } else if length <= 0xFFFF {
        frame += [maskBit | 126, UInt8(length >> 8), UInt8(length & 0xFF)]
    } else {
        frame.append(maskBit | 127)
        for shift in stride(from: 56, through: 0, by: -8) {
            frame.append(UInt8(truncatingIfNeeded: length >> UInt64(shift)))
        }
    }
    var body = payload
    if let maskKey {
        frame += maskKey
        body.withUnsafeMutableBufferPointer { FrameEncoder.applyMask(maskKey, to: $0) }
    }
    return frame + body
}

/// Feeds bytes in chunks of `chunk` and collects every event until a failure or the end.
func decodeAll(
    _ bytes: [UInt8], chunk: Int = .max, maxMessageSize: Int = 1 << 20, role: EndpointRole = .client
) -> ([InboundEvent], ProtocolFailure?) {
    var decoder = FrameDecoder(maxMessageSize: maxMessageSize, role: role)
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
