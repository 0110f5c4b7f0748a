package import LiveConnection
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A non-blocking TCP socket whose waits go through the ``IOReactor``.
///
/// Every read and write is attempted at once and, on `EAGAIN`, parks the task in the
/// reactor until the socket is ready, the deadline passes (`ETIMEDOUT`) or the task is
/// cancelled. Errors keep their errno name: a reset is `ECONNRESET`, as the manager
/// reports it. `shutdown()` wakes pending waits; the descriptor itself is closed when
/// the last reference goes, so a waiting `poll` never sees a reused descriptor.
package final class TCPSocket: ByteStream {
    let descriptor: Int32

    /// Takes ownership of a connected descriptor (from `socket` + `connect`, or `accept`).
    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit { posixClose(descriptor) }

    /// Connects to the first address that answers, in resolver order.
    package static func connect(host: String, port: UInt16, until deadline: ContinuousClock.Instant)
        async throws(TransportError) -> TCPSocket
    {
        let addresses = try await Resolver.resolve(host: host, port: port, until: deadline)
        var lastError = TransportError.unresolvable(host: host)
        for address in addresses {
            do {
                return try await connect(to: address, until: deadline)
            } catch {
                if error == .cancelled { throw error }
                lastError = error
                if case .reset(errno: "ETIMEDOUT") = error { throw error }
            }
        }
        throw lastError
    }

    private static func connect(to address: SocketAddress, until deadline: ContinuousClock.Instant)
        async throws(TransportError) -> TCPSocket
    {
        #if canImport(Glibc)
            let descriptor = socket(address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
            let descriptor = socket(address.family, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw .reset(errno: errnoName(errno)) }
        let socket = TCPSocket(descriptor: descriptor)
        socket.configureNonBlocking()
        let status = address.withSockaddr { pointer, length in posixConnect(descriptor, pointer, length) }
        if status != 0 {
            guard errno == EINPROGRESS else { throw connectError(errno) }
            switch await IOReactor.shared.wait(for: .writable, on: descriptor, until: deadline) {
            case .cancelled: throw .cancelled
            case .timedOut: throw .reset(errno: "ETIMEDOUT")
            case .ready: break
            }
            var failure: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            _ = getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &failure, &length)
            if failure != 0 { throw connectError(failure) }
        }
        return socket
    }

    /// Non-blocking, no Nagle (frames are written whole; Nagle would only delay pings and
    /// small messages), no SIGPIPE on Darwin.
    func configureNonBlocking() {
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        var one: Int32 = 1
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        #if canImport(Darwin)
            _ = setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }

    private static func connectError(_ code: Int32) -> TransportError {
        code == ECONNREFUSED ? .refused : .reset(errno: errnoName(code))
    }

    package func read(maximum: Int, until deadline: ContinuousClock.Instant?) async throws(TransportError) -> [UInt8] {
        while true {
            // Received straight into uninitialised storage: no zero-filling per read.
            var result = 0
            var code: Int32 = 0
            let bytes = [UInt8](unsafeUninitializedCapacity: maximum) { buffer, count in
                result = recv(descriptor, buffer.baseAddress, maximum, 0)
                code = errno
                count = max(result, 0)
            }
            if result >= 0 { return bytes }
            if code == EINTR { continue }
            guard code == EAGAIN || code == EWOULDBLOCK else { throw .reset(errno: errnoName(code)) }
            // A reply due within a millisecond (request/response on a LAN) is picked up here,
            // without the two thread hand-offs of a reactor wait. It holds this pool thread
            // for at most 1 ms, once per wait; anything slower parks in the reactor.
            var probe = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            if !Task.isCancelled && poll(&probe, 1, 1) > 0 { continue }
            try await waitUntil(.readable, deadline: deadline)
        }
    }

    package func write(_ bytes: [UInt8], until deadline: ContinuousClock.Instant?) async throws(TransportError) {
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { raw in
                send(descriptor, raw.baseAddress! + offset, raw.count - offset, Self.sendFlags)
            }
            if count >= 0 {
                offset += count
                continue
            }
            let code = errno
            if code == EINTR { continue }
            guard code == EAGAIN || code == EWOULDBLOCK else { throw .reset(errno: errnoName(code)) }
            try await waitUntil(.writable, deadline: deadline)
        }
    }

    /// Non-blocking single attempts, for the TLS layer that manages its own buffers.
    func tryReceive(into buffer: inout [UInt8]) -> IOAttempt {
        let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        if count > 0 { return .transferred(count) }
        if count == 0 { return .endOfStream }
        let code = errno
        return code == EAGAIN || code == EWOULDBLOCK || code == EINTR ? .wouldBlock : .failed(code)
    }

    func trySend(_ bytes: ArraySlice<UInt8>) -> IOAttempt {
        let count = bytes.withUnsafeBytes { raw in send(descriptor, raw.baseAddress, raw.count, Self.sendFlags) }
        if count >= 0 { return .transferred(count) }
        let code = errno
        return code == EAGAIN || code == EWOULDBLOCK || code == EINTR ? .wouldBlock : .failed(code)
    }

    func waitUntil(_ interest: IOReactor.Interest, deadline: ContinuousClock.Instant?) async throws(TransportError) {
        switch await IOReactor.shared.wait(for: interest, on: descriptor, until: deadline) {
        case .ready: return
        case .timedOut: throw .reset(errno: "ETIMEDOUT")
        case .cancelled: throw .cancelled
        }
    }

    package func shutdown() {
        posixShutdown(descriptor)
    }

    package func shutdownWrite() {
        posixShutdownWrite(descriptor)
    }

    /// Ends the connection with a TCP reset instead of a FIN: the peer's next read fails
    /// with ECONNRESET. Linger 0 makes the final `close` send RST; on Linux, disconnecting
    /// the socket (`connect` to AF_UNSPEC) sends it at once, while tasks may still hold
    /// the descriptor. Pending waits are woken either way.
    package func reset() {
        var immediate = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_LINGER, &immediate, socklen_t(MemoryLayout<linger>.size))
        #if canImport(Glibc)
            var unspecified = sockaddr()
            unspecified.sa_family = sa_family_t(AF_UNSPEC)
            _ = posixConnect(descriptor, &unspecified, socklen_t(MemoryLayout<sockaddr>.size))
        #endif
        posixShutdown(descriptor)
    }

    #if canImport(Glibc)
        /// No SIGPIPE on a write to a reset connection: the error comes back as EPIPE instead.
        private static let sendFlags = Int32(MSG_NOSIGNAL)
    #else
        private static let sendFlags: Int32 = 0
    #endif
}

/// The result of one non-blocking attempt.
enum IOAttempt: Equatable {
    case transferred(Int)
    case wouldBlock
    case endOfStream
    case failed(Int32)
}
