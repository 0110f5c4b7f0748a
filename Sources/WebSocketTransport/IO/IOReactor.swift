import Foundation

import typealias LiveConnection.Mutex

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Parks tasks until a socket is readable or writable, on one `poll(2)` thread.
///
/// ```swift
/// switch await IOReactor.shared.wait(for: .readable, on: fd, until: deadline) {
/// case .ready: ...        // read now
/// case .timedOut: ...     // the deadline passed
/// case .cancelled: ...    // the task was cancelled
/// }
/// ```
///
/// Why a thread of its own: a blocked `poll` or `recv` on the cooperative pool (two
/// threads on these machines) would stall every task in the process for as long as a
/// silent peer stays silent. Here a waiting task holds no thread at all: it is a
/// continuation in a list, resumed by the reactor thread when `poll` reports the socket,
/// when its deadline passes, or at once when the task is cancelled. A self-pipe wakes
/// the thread whenever the list changes. Deadlines are on `ContinuousClock`: this is
/// the real-network edge of the package, which the simulator replaces wholesale.
package final class IOReactor: Sendable {
    /// The process-wide reactor, started on first use; its thread lives as long as the process.
    package static let shared = IOReactor()

    package enum Interest: Sendable {
        case readable, writable
    }

    package enum Outcome: Sendable, Equatable {
        case ready, timedOut, cancelled
    }

    private struct Waiter {
        var id: UInt64
        var descriptor: Int32
        var events: Int16
        var deadline: ContinuousClock.Instant?
        var continuation: CheckedContinuation<Outcome, Never>
    }

    private struct State {
        var waiters: [Waiter] = []
        var nextID: UInt64 = 0
        /// Waits that were announced but whose continuation is not registered yet.
        var registering: Set<UInt64> = []
        /// Waits cancelled in that window: they resume as cancelled when they register.
        var cancelledEarly: Set<UInt64> = []
    }

    private let state = Mutex(State())
    private let wakeReader: Int32
    private let wakeWriter: Int32

    private init() {
        var descriptors: [Int32] = [0, 0]
        guard pipe(&descriptors) == 0 else {
            preconditionFailure("IOReactor cannot create its wake pipe: \(errnoNameAndMeaning(errno))")
        }
        wakeReader = descriptors[0]
        wakeWriter = descriptors[1]
        for descriptor in descriptors {
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        }
        let thread = Thread { [self] in runLoop() }
        thread.name = "WebSocketTransport.IOReactor"
        thread.start()
    }

    /// Waits until `descriptor` is ready for `interest`, the deadline passes, or the task is cancelled.
    package func wait(for interest: Interest, on descriptor: Int32, until deadline: ContinuousClock.Instant? = nil)
        async
        -> Outcome
    {
        let id = state.withLock { state in
            state.nextID += 1
            state.registering.insert(state.nextID)
            return state.nextID
        }
        let events = Int16(interest == .readable ? POLLIN : POLLOUT)
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let cancelled = state.withLock { state in
                    state.registering.remove(id)
                    if state.cancelledEarly.remove(id) != nil { return true }
                    state.waiters.append(
                        Waiter(
                            id: id, descriptor: descriptor, events: events, deadline: deadline,
                            continuation: continuation))
                    return false
                }
                if cancelled {
                    continuation.resume(returning: .cancelled)
                } else {
                    wake()
                }
            }
        } onCancel: {
            let waiter: Waiter? = state.withLock { state in
                if let index = state.waiters.firstIndex(where: { $0.id == id }) {
                    return state.waiters.remove(at: index)
                }
                if state.registering.contains(id) { state.cancelledEarly.insert(id) }
                return nil
            }
            waiter?.continuation.resume(returning: .cancelled)
            if waiter != nil { wake() }
        }
    }

    private func wake() {
        var byte: UInt8 = 1
        // A full pipe already guarantees a wake-up, so EAGAIN is fine.
        _ = write(wakeWriter, &byte, 1)
    }

    private func runLoop() {
        while true {
            let (ids, descriptors, timeout) = state.withLock { state in
                var fds = [pollfd(fd: wakeReader, events: Int16(POLLIN), revents: 0)]
                var ids: [UInt64] = []
                var nearest: ContinuousClock.Instant?
                for waiter in state.waiters {
                    fds.append(pollfd(fd: waiter.descriptor, events: waiter.events, revents: 0))
                    ids.append(waiter.id)
                    if let deadline = waiter.deadline { nearest = min(nearest ?? deadline, deadline) }
                }
                return (ids, fds, nearest.map(Self.milliseconds(until:)) ?? -1)
            }
            var fds = descriptors
            let count = poll(&fds, nfds_t(fds.count), timeout)
            if count < 0 && errno != EINTR {
                preconditionFailure("IOReactor poll failed: \(errnoNameAndMeaning(errno))")
            }
            if fds[0].revents != 0 { drainWakePipe() }
            let now = ContinuousClock.now
            var ready: [UInt64: Bool] = [:]
            for (offset, id) in ids.enumerated() where fds[offset + 1].revents != 0 { ready[id] = true }
            let resumed: [(CheckedContinuation<Outcome, Never>, Outcome)] = state.withLock { state in
                var resumed: [(CheckedContinuation<Outcome, Never>, Outcome)] = []
                state.waiters.removeAll { waiter in
                    // POLLERR, POLLHUP and POLLNVAL count as ready: the next read or write reports them.
                    if ready[waiter.id] == true {
                        resumed.append((waiter.continuation, .ready))
                        return true
                    }
                    if let deadline = waiter.deadline, deadline <= now {
                        resumed.append((waiter.continuation, .timedOut))
                        return true
                    }
                    return false
                }
                return resumed
            }
            for (continuation, outcome) in resumed { continuation.resume(returning: outcome) }
        }
    }

    private func drainWakePipe() {
        var scratch = [UInt8](repeating: 0, count: 256)
        while read(wakeReader, &scratch, scratch.count) > 0 {}
    }

    /// Milliseconds for poll, rounded up so a deadline is never reported early.
    private static func milliseconds(until deadline: ContinuousClock.Instant) -> Int32 {
        let remaining = ContinuousClock.now.duration(to: deadline)
        if remaining <= .zero { return 0 }
        let nanoseconds = remaining.nanosecondsSaturating
        return Int32(clamping: (nanoseconds + 999_999) / 1_000_000)
    }
}

extension Duration {
    /// Whole nanoseconds, saturating (the package's `nanoseconds` lives in LiveConnection).
    var nanosecondsSaturating: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        return scaled &+ attoseconds / 1_000_000_000
    }
}
