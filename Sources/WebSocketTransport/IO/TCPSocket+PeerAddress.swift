#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension TCPSocket {
    /// The peer's address as `host:port` (`[v6]:port` for IPv6), or nil when the socket has no
    /// peer any more: what the proxy calls a client that gives no identity of its own.
    package var peerAddress: String? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let status = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(descriptor, $0, &length) }
        }
        guard status == 0 else { return nil }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
                    var ip = address.pointee.sin_addr
                    guard inet_ntop(AF_INET, &ip, &text, socklen_t(text.count)) != nil else { return nil }
                    return "\(Self.string(text)):\(UInt16(bigEndian: address.pointee.sin_port))"
                }
            }
        case AF_INET6:
            return withUnsafePointer(to: &storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                    var ip = address.pointee.sin6_addr
                    guard inet_ntop(AF_INET6, &ip, &text, socklen_t(text.count)) != nil else { return nil }
                    return "[\(Self.string(text))]:\(UInt16(bigEndian: address.pointee.sin6_port))"
                }
            }
        default:
            return nil
        }
    }

    /// A NUL-terminated C string in a buffer, as Swift text.
    private static func string(_ text: [CChar]) -> String {
        String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
