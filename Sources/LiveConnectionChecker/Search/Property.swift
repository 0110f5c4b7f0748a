/// A named property of a ``Model``: what the checker verifies.
///
/// ```swift
/// let properties: [Property<Counter>] = [
///     .always("bounded") { $0 <= 3 },                              // every reachable state
///     .always("even resets", violation: { $0 < 0 ? "negative \($0)" : nil }),
///     .sometimes("reaches 3") { $0 == 3 },                        // some reachable state
///     .eventually("can reset", from: { $0 == 3 }, reaches: { $0 == 0 }, within: 1),
/// ]
/// ```
///
/// - `always`: an invariant; a violation is reported with the shortest path to it
///   (breadth-first mode).
/// - `sometimes`: must hold in at least one reachable state, so a model that can do
///   nothing (and therefore violates nothing) does not pass.
/// - `eventually`: a bounded leads-to possibility: from every reachable state where
///   `trigger` holds, some path of at most `within` actions accepted by `progress`
///   reaches a state where `goal` holds. With `progress` limited to the actions of a
///   cooperative environment this is "no deadlock": the system can always still get
///   there. It is not a guarantee on every path (an adversary that fails every attempt
///   defeats any retry loop).
public struct Property<M: Model>: Sendable {
    /// What kind of claim this is.
    public enum Kind: String, Sendable {
        case always, sometimes, eventually
    }

    @usableFromInline enum Check: Sendable {
        case always(@Sendable (M.State) -> String?)
        case sometimes(@Sendable (M.State) -> Bool)
        case eventually(
            trigger: @Sendable (M.State) -> Bool, goal: @Sendable (M.State) -> Bool, within: Int,
            progress: @Sendable (M.Action) -> Bool)
    }

    /// The name reported on a violation ("single-live-transport", "resubscribe-before-open").
    public let name: String
    /// One line: what a pass of this property proves.
    public let summary: String
    @usableFromInline let check: Check

    /// The kind of claim.
    public var kind: Kind {
        switch check {
        case .always: .always
        case .sometimes: .sometimes
        case .eventually: .eventually
        }
    }

    /// An invariant given as a predicate.
    public static func always(
        _ name: String, _ summary: String = "", _ holds: @escaping @Sendable (M.State) -> Bool
    ) -> Self {
        Self(name: name, summary: summary, check: .always { holds($0) ? nil : "violated" })
    }

    /// An invariant that explains itself: `violation` returns nil when it holds.
    public static func always(
        _ name: String, _ summary: String = "", violation: @escaping @Sendable (M.State) -> String?
    ) -> Self {
        Self(name: name, summary: summary, check: .always(violation))
    }

    /// Some reachable state must satisfy `reached`.
    public static func sometimes(
        _ name: String, _ summary: String = "", _ reached: @escaping @Sendable (M.State) -> Bool
    ) -> Self {
        Self(name: name, summary: summary, check: .sometimes(reached))
    }

    /// From every reachable `trigger` state, a `goal` state is reachable within `steps`
    /// actions accepted by `progress`.
    public static func eventually(
        _ name: String, _ summary: String = "", from trigger: @escaping @Sendable (M.State) -> Bool,
        reaches goal: @escaping @Sendable (M.State) -> Bool, within steps: Int,
        via progress: @escaping @Sendable (M.Action) -> Bool = { _ in true }
    ) -> Self {
        precondition(steps >= 0, "eventually(\(name)) needs a non-negative bound")
        return Self(
            name: name, summary: summary,
            check: .eventually(trigger: trigger, goal: goal, within: steps, progress: progress))
    }
}
