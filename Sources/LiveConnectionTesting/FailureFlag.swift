import typealias LiveConnection.Mutex

/// A flag set from an issue handler (any thread) and read after the test body.
final class FailureFlag: Sendable {
    private let value = Mutex(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}
