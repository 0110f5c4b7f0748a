/// A frame's opcode (RFC 6455 §5.2). Values 3–7 and 11–15 are reserved and fail the connection.
///
/// ```swift
/// Opcode(rawValue: 0x9) == .ping   // true
/// Opcode.ping.isControl            // true
/// ```
public enum Opcode: UInt8, Sendable, Hashable {
    case continuation = 0x0
    case text = 0x1
    case binary = 0x2
    case close = 0x8
    case ping = 0x9
    case pong = 0xA

    /// Control frames (close, ping, pong) are at most 125 bytes and never fragmented (§5.5).
    public var isControl: Bool { rawValue & 0x8 != 0 }
}
