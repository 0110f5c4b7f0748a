#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension TCPSocket {
    /// The peer's address without its port ("127.0.0.1", "::1"), or "" when the socket cannot
    /// say: what a server knows of a client that names itself no other way.
    var peerHost: String {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let status = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(descriptor, $0, &length) }
        }
        guard status == 0 else { return "" }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let family = Int32(storage.ss_family)
        let written: UnsafePointer<CChar>? = withUnsafePointer(to: &storage) { pointer in
            if family == AF_INET {
                return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
                    var raw = address.pointee.sin_addr
                    return inet_ntop(AF_INET, &raw, &text, socklen_t(text.count))
                }
            }
            return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                var raw = address.pointee.sin6_addr
                return inet_ntop(AF_INET6, &raw, &text, socklen_t(text.count))
            }
        }
        guard written != nil else { return "" }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
