import LiveConnection

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A listening TCP socket whose `accept` waits in the ``IOReactor``, like every other wait.
///
/// ```swift
/// let listener = try TCPListener(host: "127.0.0.1", port: 0)   // 0: the system picks a port
/// print(listener.port)
/// let socket = try await listener.accept()                     // a non-blocking TCPSocket
/// ```
///
/// Binds IPv4 or IPv6 literal addresses (and `localhost`, as 127.0.0.1): a server's address
/// is configuration, so no name lookup is needed. `SO_REUSEADDR` lets a restarted server
/// take its port back while old connections sit in TIME_WAIT.
final class TCPListener: Sendable {
    let descriptor: Int32
    /// The bound port (the one the system chose, when 0 was asked for).
    let port: UInt16

    init(host: String, port: UInt16, backlog: Int32 = 1024) throws(TransportError) {
        let literal = host == "localhost" ? "127.0.0.1" : host
        var address4 = sockaddr_in()
        var address6 = sockaddr_in6()
        let family: Int32
        if inet_pton(AF_INET, literal, &address4.sin_addr) == 1 {
            family = AF_INET
            address4.sin_family = sa_family_t(AF_INET)
            address4.sin_port = port.bigEndian
        } else if inet_pton(AF_INET6, literal, &address6.sin6_addr) == 1 {
            family = AF_INET6
            address6.sin6_family = sa_family_t(AF_INET6)
            address6.sin6_port = port.bigEndian
        } else {
            throw .unresolvable(host: host)
        }
        #if canImport(Glibc)
            let descriptor = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
            let descriptor = socket(family, SOCK_STREAM, 0)
        #endif
        // A person reads these at the start (`livesim serve`): the name and what it means.
        guard descriptor >= 0 else { throw .reset(errno: errnoNameAndMeaning(errno)) }
        var one: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        let bound: Int32 =
            family == AF_INET
            ? withUnsafePointer(to: &address4) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            : withUnsafePointer(to: &address6) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        guard bound == 0, listen(descriptor, backlog) == 0 else {
            let code = errno
            posixClose(descriptor)
            throw .reset(errno: errnoNameAndMeaning(code))
        }
        self.descriptor = descriptor
        self.port = Self.boundPort(descriptor, family: family) ?? port
    }

    deinit { posixClose(descriptor) }

    private static func boundPort(_ descriptor: Int32, family: Int32) -> UInt16? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let status = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard status == 0 else { return nil }
        return withUnsafePointer(to: &storage) { pointer in
            family == AF_INET
                ? pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    UInt16(bigEndian: $0.pointee.sin_port)
                }
                : pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    UInt16(bigEndian: $0.pointee.sin6_port)
                }
        }
    }

    /// The next connection, non-blocking and with Nagle off. Throws `.cancelled` when the
    /// task is cancelled, and the errno of a failed `accept` (EMFILE when out of descriptors:
    /// the caller decides how long to back off; the pending connection stays queued).
    func accept() async throws(TransportError) -> TCPSocket {
        while true {
            #if canImport(Glibc)
                let accepted = Glibc.accept(descriptor, nil, nil)
            #else
                let accepted = Darwin.accept(descriptor, nil, nil)
            #endif
            if accepted >= 0 {
                _ = fcntl(accepted, F_SETFD, FD_CLOEXEC)
                let socket = TCPSocket(descriptor: accepted)
                socket.configureNonBlocking()
                return socket
            }
            let code = errno
            switch code {
            case EINTR, ECONNABORTED: continue
            case EAGAIN, EWOULDBLOCK:
                switch await IOReactor.shared.wait(for: .readable, on: descriptor) {
                case .cancelled: throw .cancelled
                case .ready, .timedOut: continue
                }
            default: throw .reset(errno: errnoName(code))
            }
        }
    }
}
