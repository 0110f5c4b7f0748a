package import LiveConnection
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A TCP socket whose waits go through the ``IOReactor``.
///
/// Every read and write is attempted at once and, on `EAGAIN`, parks the task in the
/// reactor until the socket is ready, the deadline passes (`ETIMEDOUT`) or the task is
/// cancelled (a client socket's read after a write first waits up to a scheduler tick inside
/// `recv` for the answer: ``waitForAnswersInReceive()``). Errors keep their errno name: a
/// reset is `ECONNRESET`, as the manager reports it. `shutdown()` wakes pending waits; the descriptor itself is closed when
/// the last reference goes, so a waiting `poll` never sees a reused descriptor.
package final class TCPSocket: ByteStream {
    let descriptor: Int32
    /// A connected client socket, blocking with a receive timeout (``waitForAnswersInReceive()``):
    /// an answer to what it wrote is awaited inside `recv`.
    private let answersWaitInReceive = Atomic(false)
    /// Something was written since the last read: a request, whose answer may be on its way.
    private let wroteSinceRead = Atomic(false)

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
        socket.waitForAnswersInReceive()
        return socket
    }

    /// Lets `read` wait for the answer to a request inside one blocking `recv`, as a plain
    /// blocking client does, instead of a `recv` that finds nothing, a `poll` and a `recv` after
    /// it: that turn-around was most of what our echo client cost beyond a raw-socket client
    /// (docs/benchmarks.md). The socket becomes blocking with a 1 ms receive timeout, which the
    /// kernel rounds up to a scheduler tick (4 ms at HZ=250): the longest a pool thread waits
    /// there before the task parks in the reactor. Every other call says `MSG_DONTWAIT`, and a
    /// send timeout bounds any that would not. Client sockets only: a server's many
    /// connections keep their 1 ms probe. Left non-blocking if a step fails.
    private func waitForAnswersInReceive() {
        var timeout = timeval(tv_sec: 0, tv_usec: 1000)
        let size = socklen_t(MemoryLayout<timeval>.size)
        guard setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, size) == 0,
            setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, size) == 0
        else { return }
        let flags = fcntl(descriptor, F_GETFL)
        guard flags >= 0, fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK) == 0 else { return }
        answersWaitInReceive.store(true, ordering: .relaxed)
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
        // After a request, its answer is awaited inside `recv` (see waitForAnswersInReceive),
        // unless the deadline is nearer than the receive timeout could overshoot it.
        var awaitAnswer =
            answersWaitInReceive.load(ordering: .relaxed) && wroteSinceRead.exchange(false, ordering: .relaxed)
            && deadline.map { ContinuousClock.now + .milliseconds(10) < $0 } ?? true
        while true {
            // Received straight into uninitialised storage: no zero-filling per read.
            var result = 0
            var code: Int32 = 0
            let flags = awaitAnswer && !Task.isCancelled ? 0 : Self.dontWait
            let bytes = [UInt8](unsafeUninitializedCapacity: maximum) { buffer, count in
                result = recv(descriptor, buffer.baseAddress, maximum, flags)
                code = errno
                count = max(result, 0)
            }
            if result >= 0 { return bytes }
            if code == EINTR { continue }
            guard code == EAGAIN || code == EWOULDBLOCK else { throw .reset(errno: errnoName(code)) }
            if awaitAnswer {
                // The receive timeout passed without an answer: park in the reactor.
                awaitAnswer = false
                try await waitUntil(.readable, deadline: deadline)
                continue
            }
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
        wroteSinceRead.store(true, ordering: .relaxed)
    }

    /// Non-blocking single attempts, for the TLS layer that manages its own buffers.
    func tryReceive(into buffer: inout [UInt8]) -> IOAttempt {
        let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, Self.dontWait) }
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

    /// Never blocks, on a socket made blocking for its receives too.
    private static let dontWait = Int32(MSG_DONTWAIT)

    #if canImport(Glibc)
        /// No SIGPIPE on a write to a reset connection: the error comes back as EPIPE instead.
        private static let sendFlags = Int32(MSG_NOSIGNAL) | dontWait
    #else
        private static let sendFlags: Int32 = dontWait
    #endif
}

/// The result of one non-blocking attempt.
enum IOAttempt: Equatable {
    case transferred(Int)
    case wouldBlock
    case endOfStream
    case failed(Int32)
}
