import Foundation
import LiveConnection
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One resolved socket address, copied out of `getaddrinfo`'s list.
struct SocketAddress: Sendable {
    var family: Int32
    var storage: [UInt8]

    func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        storage.withUnsafeBytes { raw in
            body(raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count))
        }
    }
}

/// Name resolution without blocking the cooperative pool.
///
/// `getaddrinfo` blocks, for as long as DNS takes. It runs on a thread of its own and
/// the awaiting task is resumed when it returns, when the deadline passes (`ETIMEDOUT`),
/// or at once if the task is cancelled; in the last two cases the lookup finishes in the
/// background and its result is dropped.
enum Resolver {
    static func resolve(host: String, port: UInt16, until deadline: ContinuousClock.Instant)
        async throws(TransportError)
        -> [SocketAddress]
    {
        // The lookup races the deadline; both children honour cancellation, so the loser ends at once.
        let result = await withTaskGroup(of: Result<[SocketAddress], TransportError>?.self) { group in
            group.addTask {
                do throws(TransportError) { return .success(try await resolve(host: host, port: port)) } catch {
                    return .failure(error)
                }
            }
            group.addTask {
                // A negative descriptor is ignored by poll: this wait only ends at the deadline.
                let outcome = await IOReactor.shared.wait(for: .readable, on: -1, until: deadline)
                return outcome == .timedOut ? .failure(.reset(errno: "ETIMEDOUT")) : nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? .failure(.cancelled)
        }
        return try result.get()
    }

    private static func resolve(host: String, port: UInt16) async throws(TransportError) -> [SocketAddress] {
        let once = Mutex<CheckedContinuation<Result<[SocketAddress], TransportError>, Never>?>(nil)
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                once.withLock { $0 = continuation }
                if Task.isCancelled {
                    once.withLock { $0.take() }?.resume(returning: .failure(.cancelled))
                    return
                }
                let thread = Thread {
                    let result = lookUp(host: host, port: port)
                    once.withLock { $0.take() }?.resume(returning: result)
                }
                thread.name = "WebSocketTransport.Resolver"
                thread.start()
            }
        } onCancel: {
            once.withLock { $0.take() }?.resume(returning: .failure(.cancelled))
        }
        return try result.get()
    }

    private static func lookUp(host: String, port: UInt16) -> Result<[SocketAddress], TransportError> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
            hints.ai_socktype = SOCK_STREAM
        #endif
        hints.ai_flags = AI_ADDRCONFIG
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else { return .failure(.unresolvable(host: host)) }
        defer { freeaddrinfo(first) }
        var addresses: [SocketAddress] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let entry = cursor {
            if let address = entry.pointee.ai_addr {
                let bytes = UnsafeRawBufferPointer(start: address, count: Int(entry.pointee.ai_addrlen))
                addresses.append(SocketAddress(family: entry.pointee.ai_family, storage: Array(bytes)))
            }
            cursor = entry.pointee.ai_next
        }
        return addresses.isEmpty ? .failure(.unresolvable(host: host)) : .success(addresses)
    }
}
