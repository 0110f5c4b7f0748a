/// A finite state machine the checker can explore: states, the actions enabled in each,
/// where an action leads, and the properties every reachable state must satisfy.
///
/// ```swift
/// struct Counter: Model {
///     var initialStates: [Int] { [0] }
///     func actions(in state: Int) -> [String] { state < 3 ? ["inc"] : ["reset"] }
///     func next(_ action: String, after state: Int) -> [Int] { action == "inc" ? [state + 1] : [0] }
///     var properties: [Property<Counter>] {
///         [.always("bounded") { $0 <= 3 }, .sometimes("reaches 3") { $0 == 3 }]
///     }
/// }
/// let result = ModelChecker(Counter()).run()   // passes: 4 distinct states
/// ```
///
/// A model is a value with no mutable state: the checker calls it from several threads.
/// Nondeterminism is explicit: `next(_:after:)` returns every state the action may lead
/// to (its index is the *choice* a counterexample records); an empty result means the
/// action is not possible after all.
public protocol Model: Sendable {
    /// One configuration of the system; equal states are explored once.
    associatedtype State: Hashable & Sendable
    /// Something that can happen; printed in counterexamples.
    associatedtype Action: Hashable & Sendable & CustomStringConvertible
    /// Per-thread scratch space for ``expand(_:memo:where:_:)`` (a cache, buffers).
    /// Models that need none leave it `Void`.
    associatedtype Memo = Void

    /// Where the search starts.
    var initialStates: [State] { get }
    /// The actions that may happen in `state`.
    func actions(in state: State) -> [Action]
    /// The states `action` may lead to from `state` (several when nondeterministic).
    func next(_ action: Action, after state: State) -> [State]
    /// What must hold: `always` invariants, `sometimes` reachability, bounded `eventually`.
    var properties: [Property<Self>] { get }

    /// A fresh per-thread memo.
    func makeMemo() -> Memo
    /// Calls `body` with every (action, choice, successor) of `state`, in a fixed order,
    /// skipping actions for which `filter` returns false. The action is passed as a
    /// closure that builds it, so a search that never looks at it does not pay for it.
    ///
    /// The default goes through ``actions(in:)`` and ``next(_:after:)``; a model may
    /// override it to avoid building arrays (the connection model does). The order must
    /// be deterministic: counterexamples are rebuilt by replaying emission ordinals.
    func expand(
        _ state: State, memo: inout Memo, where filter: ((Action) -> Bool)?,
        _ body: (_ action: () -> Action, _ choice: Int, _ next: State) -> Void)
    /// ``expand(_:memo:where:_:)`` for a caller that applies one filter to many states
    /// (the `eventually` searches): every call with the same `filterKey` passes the same
    /// filter, so the model may keep the filter's answer per action in `memo` instead of
    /// building each action and asking again. The default ignores the key.
    func expand(
        _ state: State, memo: inout Memo, where filter: @escaping (Action) -> Bool, filterKey: Int,
        _ body: (_ action: () -> Action, _ choice: Int, _ next: State) -> Void)
    /// A 64-bit hash of the state, stable within one run: the visited set's key and the
    /// depth-first mode's fingerprint. The default uses `hashValue`.
    func fingerprint(_ state: State) -> UInt64
    /// False promises that every `always` property holds in `state`, so the checker skips
    /// evaluating them one by one. The default, true, evaluates them all. A model whose
    /// invariants read a few bits (the connection model's read an evidence mask) makes the
    /// common case one test instead of a closure call per property.
    func invariantsMayFail(in state: State) -> Bool
    /// A key that groups states whose expansions share work: the breadth-first search
    /// expands each level grouped by it (hashed into buckets), so that such states are
    /// expanded one after another while what they share is in cache. The connection
    /// model returns its machine code (whose steps it caches). The default, 0, groups
    /// nothing. Any key is correct; only speed depends on it.
    func localityKey(_ state: State) -> UInt64
}

extension Model where Memo == Void {
    @inlinable public func makeMemo() {}
}

extension Model {
    @inlinable public func expand(
        _ state: State, memo: inout Memo, where filter: ((Action) -> Bool)?,
        _ body: (_ action: () -> Action, _ choice: Int, _ next: State) -> Void
    ) {
        for action in actions(in: state) where filter?(action) ?? true {
            for (choice, successor) in next(action, after: state).enumerated() {
                body({ action }, choice, successor)
            }
        }
    }

    @inlinable public func expand(
        _ state: State, memo: inout Memo, where filter: @escaping (Action) -> Bool, filterKey: Int,
        _ body: (_ action: () -> Action, _ choice: Int, _ next: State) -> Void
    ) {
        expand(state, memo: &memo, where: filter, body)
    }

    @inlinable public func fingerprint(_ state: State) -> UInt64 {
        UInt64(bitPattern: Int64(state.hashValue))
    }

    @inlinable public func invariantsMayFail(in state: State) -> Bool { true }

    @inlinable public func localityKey(_ state: State) -> UInt64 { 0 }
}
