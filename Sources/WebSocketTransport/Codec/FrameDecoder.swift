import Foundation
package import LiveConnection

/// What the peer sent, once a whole message or control frame has arrived.
package enum InboundEvent: Hashable, Sendable {
    /// A complete data message, reassembled from its fragments.
    case message(Message)
    /// A ping; the connection answers it with a pong carrying the same payload.
    case ping([UInt8])
    /// A pong; it completes the ping with the same payload.
    case pong([UInt8])
    /// The peer's close frame, already validated.
    case close(ClosePayload)
}

/// Which end of the connection a codec works for; it decides who masks (RFC 6455 §5.1).
package enum EndpointRole: Sendable, Hashable {
    /// We are the client: frames we receive must be unmasked, frames we send are masked.
    case client
    /// We are the server: frames we receive must be masked (and are unmasked here),
    /// frames we send are not.
    case server
}

/// Decodes the peer's frames from partial input (sans-IO): append bytes as they arrive,
/// take events while there are any. The same decoder serves both ends; ``role`` says
/// which, and so whether a received frame must carry a mask.
///
/// ```swift
/// var decoder = FrameDecoder(maxMessageSize: 1 << 20)
/// decoder.append([0x81, 0x02, 0x68])            // half a frame: no event yet
/// try decoder.nextEvent()                        // nil
/// decoder.append([0x69])
/// try decoder.nextEvent()                        // .message(.text("hi"))
/// ```
///
/// Every RFC 6455 violation becomes a ``ProtocolFailure`` carrying its close code.
/// The size limit is checked against the length in the header, before the payload
/// arrives, so a header that announces 2^62 bytes costs nothing: the decoder only ever
/// holds bytes the peer actually sent, bounded by the limit plus one header.
/// After a close frame or a failure it yields nothing more (a failure is rethrown).
package struct FrameDecoder: Sendable {
    /// The largest data message accepted, summed over its fragments.
    package let maxMessageSize: Int
    /// Inflates permessage-deflate messages when the extension was negotiated; nil otherwise,
    /// and then RSV1 is a protocol error like the other reserved bits.
    package let inflater: MessageInflater?
    /// Our end: a client rejects masked frames, a server rejects unmasked ones (1002).
    package let role: EndpointRole
    /// Received bytes not yet decoded, from `readIndex` on.
    private var buffer: [UInt8] = []
    private var readIndex = 0
    /// The data message being reassembled from fragments, if any.
    private var fragments: [UInt8] = []
    private var fragmentedOpcode: Opcode?
    private var fragmentedUTF8 = UTF8Validator()
    /// The message being reassembled is compressed: `fragments` holds its inflated bytes.
    private var compressedMessage = false
    /// Payload bytes of the incomplete text frame at `readIndex` already fed to the validator,
    /// so bad UTF-8 fails as soon as it arrives, not when its frame is complete (Autobahn 6.4).
    private var validatedPayloadBytes = 0
    /// Payload bytes of the incomplete masked frame at `readIndex` already unmasked in place.
    private var unmaskedPayloadBytes = 0
    private var closed = false
    private var failure: ProtocolFailure?

    package init(maxMessageSize: Int = 1 << 20, inflater: MessageInflater? = nil, role: EndpointRole = .client) {
        precondition(maxMessageSize >= 0, "maxMessageSize must not be negative")
        self.maxMessageSize = maxMessageSize
        self.inflater = inflater
        self.role = role
    }

    /// Bytes received but not yet part of a returned event.
    package var bufferedByteCount: Int { buffer.count - readIndex }

    /// Bytes the decoder holds in memory: its receive buffer's and its unfinished message's
    /// allocations (capacity, not count: what the process really holds). A server charges
    /// them to its budget.
    package var heldByteCount: Int { buffer.capacity + fragments.capacity }

    /// Appends received bytes.
    package mutating func append(_ bytes: UnsafeRawBufferPointer) {
        compact()
        buffer.append(contentsOf: bytes.bindMemory(to: UInt8.self))
    }

    /// Appends received bytes.
    package mutating func append(_ bytes: some Sequence<UInt8>) {
        compact()
        buffer.append(contentsOf: bytes)
    }

    /// Drops consumed bytes once they are at least half the buffer, so appends stay amortised O(1).
    /// An emptied buffer keeps its allocation only up to 256 KiB: one large message must not
    /// leave a connection holding its size for as long as it stays open.
    private mutating func compact() {
        guard readIndex > 0 else { return }
        if readIndex == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 256 * 1024)
            readIndex = 0
        } else if readIndex >= buffer.count / 2 {
            buffer.removeFirst(readIndex)
            readIndex = 0
        }
    }

    /// The next complete event, nil if more bytes are needed.
    package mutating func nextEvent() throws(ProtocolFailure) -> InboundEvent? {
        if let failure { throw failure }
        if closed { return nil }
        do throws(ProtocolFailure) {
            while true {
                guard let (header, payload) = try nextFrame() else {
                    // Everything whole is consumed: let go of it now, not at the next append.
                    compact()
                    return nil
                }
                let validated = validatedPayloadBytes
                validatedPayloadBytes = 0
                unmaskedPayloadBytes = 0
                if let event = try handle(header, payload, validated: validated) { return event }
            }
        } catch {
            failure = error
            throw error
        }
    }

    /// The next whole frame's header and payload range in `buffer`, consuming it.
    private mutating func nextFrame() throws(ProtocolFailure) -> (FrameHeader, Range<Int>)? {
        let start = readIndex
        let available = buffer.count - start
        let parsed: Result<FrameHeader?, ProtocolFailure> = buffer.withUnsafeBufferPointer { all in
            let pending = UnsafeBufferPointer(rebasing: all[start...])
            do throws(ProtocolFailure) {
                return .success(try FrameHeader.parse(pending, compression: inflater != nil))
            } catch {
                return .failure(error)
            }
        }
        guard let header = try parsed.get() else { return nil }
        switch role {
        case .client: guard header.maskKey == nil else { throw .protocolError("the server masked a frame") }
        case .server: guard header.maskKey != nil else { throw .protocolError("the client sent an unmasked frame") }
        }
        if header.isCompressed || (header.opcode == .continuation && compressedMessage) {
            // The inflated size is checked while inflating; this only bounds what one frame may
            // make us buffer (DEFLATE's stored blocks add 5 bytes per 64 KiB, hence the slack).
            let bound = UInt64(maxMessageSize) + UInt64(maxMessageSize / 64) + 1024
            guard header.payloadLength <= bound else {
                throw .tooBig("compressed frame of \(header.payloadLength) bytes over the limit of \(maxMessageSize)")
            }
        } else if !header.opcode.isControl {
            // Checked before the payload is waited for or stored (§10.4).
            let already = UInt64(fragments.count)
            // payloadLength < 2^63 (the header checked the top bit), so the sum cannot overflow.
            guard already + header.payloadLength <= UInt64(maxMessageSize) else {
                throw .tooBig(
                    "message of at least \(already + header.payloadLength) bytes over the limit of \(maxMessageSize)")
            }
        }
        let length = Int(header.payloadLength)
        let payloadStart = start + header.headerLength
        if let key = header.maskKey {
            unmask(key, payloadStart: payloadStart, arrived: min(available - header.headerLength, length))
        }
        guard available - header.headerLength >= length else {
            try validateEarly(header, payloadStart: payloadStart, arrived: available - header.headerLength)
            // Half has arrived and the size is allowed: one allocation of it, where doubling
            // would take up to twice it (not at the header: 14 bytes must not reserve a megabyte).
            if (available - header.headerLength) * 2 >= length { buffer.reserveCapacity(payloadStart + length) }
            return nil
        }
        readIndex = payloadStart + length
        return (header, payloadStart..<readIndex)
    }

    /// Unmasks the payload bytes of the current frame that arrived since the last call, in
    /// place, so early UTF-8 validation and the finished payload see the clear bytes.
    private mutating func unmask(_ key: UInt32, payloadStart: Int, arrived: Int) {
        guard arrived > unmaskedPayloadBytes else { return }
        let keyBytes: [UInt8] = [UInt8(key >> 24), UInt8(key >> 16 & 0xFF), UInt8(key >> 8 & 0xFF), UInt8(key & 0xFF)]
        // The key repeats every 4 payload bytes: start it where the previous call stopped.
        let phase = unmaskedPayloadBytes % 4
        let rotated = Array(keyBytes[phase...] + keyBytes[..<phase])
        let range = payloadStart + unmaskedPayloadBytes..<payloadStart + arrived
        buffer.withUnsafeMutableBufferPointer { all in
            FrameEncoder.applyMask(rotated, to: UnsafeMutableBufferPointer(rebasing: all[range]))
        }
        unmaskedPayloadBytes = arrived
    }

    /// Validates the part of an incomplete text frame that has arrived.
    private mutating func validateEarly(_ header: FrameHeader, payloadStart: Int, arrived: Int) throws(ProtocolFailure)
    {
        // A compressed message is validated as it is inflated, when its frames are complete.
        guard arrived > validatedPayloadBytes, !header.isCompressed, !compressedMessage else { return }
        switch header.opcode {
        case .text:
            guard fragmentedOpcode == nil else {
                throw .protocolError("a new text message began inside a fragmented one")
            }
            if validatedPayloadBytes == 0 { fragmentedUTF8 = UTF8Validator() }
        case .continuation where fragmentedOpcode == .text: break
        default: return
        }
        try validateText(payloadStart + validatedPayloadBytes..<payloadStart + arrived, final: false)
        validatedPayloadBytes = arrived
    }

    private mutating func handle(_ header: FrameHeader, _ payload: Range<Int>, validated: Int) throws(ProtocolFailure)
        -> InboundEvent?
    {
        let unvalidated = payload.lowerBound + validated..<payload.upperBound
        switch header.opcode {
        case .ping: return .ping(Array(buffer[payload]))
        case .pong: return .pong(Array(buffer[payload]))
        case .close:
            let body = try ClosePayload(parsing: buffer[payload])
            closed = true
            return .close(body)
        case .text, .binary:
            guard fragmentedOpcode == nil else {
                throw .protocolError("a new \(header.opcode) message began inside a fragmented one")
            }
            if header.isCompressed {
                fragmentedOpcode = header.opcode
                compressedMessage = true
                fragmentedUTF8 = UTF8Validator()
                return try inflate(payload, final: header.isFinal)
            }
            if header.opcode == .text {
                if validated == 0 { fragmentedUTF8 = UTF8Validator() }
                try validateText(unvalidated, final: header.isFinal)
            }
            if header.isFinal { return message(header.opcode, bytes: payload) }
            fragmentedOpcode = header.opcode
            fragments.append(contentsOf: buffer[payload])
            return nil
        case .continuation:
            guard let opcode = fragmentedOpcode else {
                throw .protocolError("a continuation frame with no message to continue")
            }
            // Only a message's first frame carries RSV1 (RFC 7692 §6.1).
            guard !header.isCompressed else { throw .protocolError("RSV1 set on a continuation frame") }
            if compressedMessage { return try inflate(payload, final: header.isFinal) }
            if opcode == .text { try validateText(unvalidated, final: header.isFinal) }
            fragments.append(contentsOf: buffer[payload])
            guard header.isFinal else { return nil }
            defer {
                fragments.removeAll(keepingCapacity: false)
                fragmentedOpcode = nil
            }
            return .message(
                opcode == .text ? .text(String(decoding: fragments, as: UTF8.self)) : .binary(Data(fragments)))
        }
    }

    /// Inflates one frame of a compressed message into `fragments`; the message when `final`.
    private mutating func inflate(_ payload: Range<Int>, final: Bool) throws(ProtocolFailure) -> InboundEvent? {
        guard let inflater else { throw .protocolError("RSV1 set without permessage-deflate") }
        let start = fragments.count
        try inflater.inflate(buffer[payload], appendingTo: &fragments, limit: maxMessageSize)
        if final { try inflater.finishMessage(appendingTo: &fragments, limit: maxMessageSize) }
        let opcode = fragmentedOpcode
        if opcode == .text {
            let valid = fragments.withUnsafeBufferPointer { all in
                fragmentedUTF8.consume(buffer: UnsafeBufferPointer(rebasing: all[start...]))
            }
            guard valid else { throw .invalidPayload("text message is not valid UTF-8") }
            if final && !fragmentedUTF8.isAtBoundary {
                throw .invalidPayload("text message ends inside a UTF-8 sequence")
            }
        }
        guard final else { return nil }
        defer {
            fragments.removeAll(keepingCapacity: false)
            fragmentedOpcode = nil
            compressedMessage = false
        }
        return .message(opcode == .text ? .text(String(decoding: fragments, as: UTF8.self)) : .binary(Data(fragments)))
    }

    /// Validates a text fragment as it arrives, so bad UTF-8 fails before the message completes.
    private mutating func validateText(_ payload: Range<Int>, final: Bool) throws(ProtocolFailure) {
        let valid = buffer.withUnsafeBufferPointer { all in
            fragmentedUTF8.consume(buffer: UnsafeBufferPointer(rebasing: all[payload]))
        }
        guard valid else { throw .invalidPayload("text message is not valid UTF-8") }
        if final && !fragmentedUTF8.isAtBoundary { throw .invalidPayload("text message ends inside a UTF-8 sequence") }
    }

    private func message(_ opcode: Opcode, bytes payload: Range<Int>) -> InboundEvent {
        buffer.withUnsafeBufferPointer { all in
            let bytes = UnsafeBufferPointer(rebasing: all[payload])
            if opcode == .text { return .message(.text(String(decoding: bytes, as: UTF8.self))) }
            return .message(.binary(Data(buffer: bytes)))
        }
    }
}
