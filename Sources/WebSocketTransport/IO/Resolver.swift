import Foundation
import LiveConnection

import typealias LiveConnection.Mutex

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
        let lookup = Lookup()
        let thread = Thread { lookup.finish(with: lookUp(host: host, port: port)) }
        thread.name = "WebSocketTransport.Resolver"
        thread.start()
        // The lookup races the deadline; both children honour cancellation, so the loser ends at once.
        let raced = await withTaskGroup(of: Result<[SocketAddress], TransportError>?.self) { group in
            group.addTask { await lookup.result() }
            group.addTask {
                // A negative descriptor is ignored by poll: this wait only ends at the deadline.
                let outcome = await IOReactor.shared.wait(for: .readable, on: -1, until: deadline)
                return outcome == .timedOut ? .failure(.reset(errno: "ETIMEDOUT")) : nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        // On a starved pool the deadline's child may run first although the lookup had
        // finished in time: a result that is there wins.
        if let finished = lookup.finished { return try finished.get() }
        guard let raced else { throw .cancelled }
        return try raced.get()
    }

    /// One lookup's result, handed from its thread to the waiting task.
    private final class Lookup: Sendable {
        private struct State {
            var result: Result<[SocketAddress], TransportError>?
            var waiter: CheckedContinuation<Result<[SocketAddress], TransportError>?, Never>?
            var cancelled = false
        }

        private let state = Mutex(State())

        var finished: Result<[SocketAddress], TransportError>? { state.withLock { $0.result } }

        func finish(with result: Result<[SocketAddress], TransportError>) {
            let waiter = state.withLock { state in
                state.result = result
                return state.waiter.take()
            }
            waiter?.resume(returning: result)
        }

        /// The result, or nil if the task is cancelled first.
        func result() async -> Result<[SocketAddress], TransportError>? {
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let now: Result<[SocketAddress], TransportError>?? = state.withLock { state in
                        if let result = state.result { return .some(result) }
                        if state.cancelled { return .some(nil) }
                        state.waiter = continuation
                        return nil
                    }
                    if let now { continuation.resume(returning: now) }
                }
            } onCancel: {
                let waiter = state.withLock { state in
                    state.cancelled = true
                    return state.waiter.take()
                }
                waiter?.resume(returning: nil)
            }
        }
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
