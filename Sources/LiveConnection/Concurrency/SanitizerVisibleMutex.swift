#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A lock with `Mutex`'s API built on `pthread_mutex_t`, for ThreadSanitizer runs only.
///
/// ```swift
/// // Built with -Xswiftc -DLIVECONNECTION_TSAN (docs/ci.md), the package's `Mutex` is this type:
/// import typealias LiveConnection.Mutex
///
/// let state = Mutex(0)
/// state.withLock { $0 += 1 }
/// ```
///
/// Why it exists: the standard library's `Synchronization.Mutex` locks with futex calls
/// that ThreadSanitizer does not intercept, so TSan sees no ordering between two critical
/// sections and reports every access under a `Mutex` as a race (measured on Swift 6.3.1:
/// two threads incrementing a counter inside `Mutex.withLock` are reported; the same code
/// under a pthread mutex is not). In a TSan build the package's one `Mutex` alias
/// (`Mutex.swift` beside this file) names this type, so the code TSan checks is ours, with
/// every access where it is in production, and only the lock underneath changes.
/// Shipped builds never name it.
package final class SanitizerVisibleMutex<Value: ~Copyable>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    package init(_ initialValue: consuming sending Value) {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        value = initialValue
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    package func withLock<Result: ~Copyable, E: Error>(_ body: (inout sending Value) throws(E) -> sending Result)
        throws(E)
        -> sending Result
    {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
