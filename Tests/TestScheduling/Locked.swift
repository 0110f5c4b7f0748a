import Foundation

/// A value shared between a test's tasks and threads, behind a lock ThreadSanitizer sees
/// (`NSLock` is a pthread mutex; the standard library's `Mutex` is not visible to it).
public final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    public init(_ value: Value) { stored = value }

    public var value: Value { lock.withLock { stored } }

    public func set(_ value: Value) { lock.withLock { stored = value } }

    public func withLock<Result>(_ body: (inout Value) -> Result) -> Result { lock.withLock { body(&stored) } }
}
