/// Evaluates a model's properties on one state: invariants, `eventually` (by a small
/// bounded search along progress actions) and the `sometimes` goals it reaches.
@usableFromInline struct PropertyEvaluator<M: Model>: Sendable {
    @usableFromInline typealias Eventually = (
        index: Int, trigger: @Sendable (M.State) -> Bool, goal: @Sendable (M.State) -> Bool, within: Int,
        progress: @Sendable (M.Action) -> Bool
    )

    @usableFromInline let model: M
    @usableFromInline let properties: [Property<M>]
    @usableFromInline let checkEventually: Bool
    /// Indices of the `sometimes` properties, in declaration order.
    @usableFromInline let sometimes: [Int]
    // The checks split by kind once, so the per-state loops call closures directly.
    @usableFromInline let invariants: [(index: Int, violation: @Sendable (M.State) -> String?)]
    @usableFromInline let eventualities: [Eventually]
    @usableFromInline let reachabilities: [@Sendable (M.State) -> Bool]

    @inlinable init(model: M, checkEventually: Bool) {
        self.model = model
        let properties = model.properties
        self.properties = properties
        self.checkEventually = checkEventually
        var invariants: [(index: Int, violation: @Sendable (M.State) -> String?)] = []
        var eventualities: [Eventually] = []
        var sometimes: [Int] = []
        var reachabilities: [@Sendable (M.State) -> Bool] = []
        for (index, property) in properties.enumerated() {
            switch property.check {
            case .always(let violation): invariants.append((index, violation))
            case .eventually(let trigger, let goal, let within, let progress):
                eventualities.append((index, trigger, goal, within, progress))
            case .sometimes(let reached):
                sometimes.append(index)
                reachabilities.append(reached)
            }
        }
        precondition(sometimes.count <= 64, "at most 64 sometimes properties")
        self.invariants = invariants
        self.eventualities = eventualities
        self.sometimes = sometimes
        self.reachabilities = reachabilities
    }

    /// All `sometimes` properties reached, as a bit mask over ``sometimes``.
    @inlinable var allReached: UInt64 { sometimes.count == 64 ? .max : (1 << UInt64(sometimes.count)) - 1 }

    /// The verdict of a search that found no failing state: `reached` is the mask of the
    /// `sometimes` goals met. An unmet goal is a violation only when the search covered the
    /// whole reachable space (the model cannot do that thing); after a depth or state bound
    /// it is "not reached within the bound" — the goal may lie just beyond it.
    @inlinable func verdict(reached: UInt64, statistics: SearchStatistics, initial: M.State) -> CheckResult<M>.Outcome {
        let unreached = sometimes.enumerated().filter { reached & (1 << UInt64($0.offset)) == 0 }.map {
            properties[$0.element]
        }
        guard let first = unreached.first else { return .passed }
        guard statistics.exhausted && !statistics.depthBoundHit else {
            return .notReachedWithinBound(unreached.map(\.name))
        }
        return .violated(
            PropertyViolation(
                property: first.name, kind: .sometimes,
                message: "no reachable state satisfies it (\(statistics.distinctStates) states explored)",
                counterexample: CounterexamplePath(initial: initial, steps: [])))
    }

    /// The first property (in declaration order) `state` violates: its index and message.
    /// `scratch` is the caller's buffer for the `eventually` searches, reused from state
    /// to state so that a search allocates nothing once the buffer has grown.
    @inlinable func firstViolation(
        _ state: M.State, memo: inout M.Memo, scratch: inout [M.State]
    ) -> (property: Int, message: String)? {
        var found: (property: Int, message: String)?
        if model.invariantsMayFail(in: state) {
            for invariant in invariants {
                if let message = invariant.violation(state) {
                    found = (invariant.index, message)
                    break
                }
            }
        }
        guard checkEventually else { return found }
        for eventually in eventualities where eventually.index < found?.property ?? .max {
            guard eventually.trigger(state) else { continue }
            if !reaches(
                from: state, goal: eventually.goal, within: eventually.within, progress: eventually.progress,
                key: eventually.index, memo: &memo, seen: &scratch)
            {
                return (eventually.index, "no path of at most \(eventually.within) progress steps reaches the goal")
            }
        }
        return found
    }

    /// The `sometimes` properties `state` satisfies, as a mask over ``sometimes``.
    @inlinable func reached(_ state: M.State, pending: UInt64) -> UInt64 {
        var mask: UInt64 = 0
        for (bit, reached) in reachabilities.enumerated() where pending & (1 << UInt64(bit)) != 0 {
            if reached(state) { mask |= 1 << UInt64(bit) }
        }
        return mask
    }

    /// A bounded breadth-first search along progress actions. The frontiers are tiny
    /// (progress actions are few), so duplicates are found by a linear scan of the
    /// states seen: cheaper than hashing into a set per trigger state.
    @inlinable func reaches(
        from start: M.State, goal: (M.State) -> Bool, within steps: Int,
        progress: @escaping @Sendable (M.Action) -> Bool, key: Int,
        memo: inout M.Memo, seen: inout [M.State]
    ) -> Bool {
        if goal(start) { return true }
        seen.removeAll(keepingCapacity: true)
        seen.append(start)
        var frontier = 0..<1
        for _ in 0..<steps {
            var found = false
            for index in frontier {
                // Keyed by the property: the model may remember which actions are progress.
                model.expand(seen[index], memo: &memo, where: progress, filterKey: key) { _, _, successor in
                    if found { return }
                    if goal(successor) {
                        found = true
                    } else if !seen.contains(successor) {
                        seen.append(successor)
                    }
                }
                if found { return true }
            }
            if frontier.upperBound == seen.count { return false }
            frontier = frontier.upperBound..<seen.count
        }
        return false
    }
}
