import Foundation

/// Values computed once per test run, whoever asks first.
///
/// A test asking for a key another test is computing waits for it rather than computing it
/// beside it: the parameterized cases that share an expensive search or exploration run side
/// by side, and repeating it would double the suite's CPU time. Different keys compute in
/// parallel, unlike a `static let` dictionary filled in one initializer, where every case
/// waits for all of it. Compute-bound work that waits here holds a thread of
/// ``OwnThreads/compute``; what it waits for runs on the thread that asked first (and the
/// model checker's own threads are Dispatch's), so a wait never starves the work.
public final class OncePerKey<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let values = Locked<[Key: Value]>([:])
    /// One lock per key, held while its value is computed.
    private let computing = Locked<[Key: NSLock]>([:])

    public init() {}

    /// The value for `key`, computed by `compute` if nobody has yet.
    public func value(for key: Key, _ compute: () throws -> Value) rethrows -> Value {
        let gate = computing.withLock { gates in
            if let gate = gates[key] { return gate }
            let gate = NSLock()
            gates[key] = gate
            return gate
        }
        gate.lock()
        defer { gate.unlock() }
        if let known = values.withLock({ $0[key] }) { return known }
        let computed = try compute()
        values.withLock { $0[key] = computed }
        return computed
    }
}
