/// Evaluates a model's properties on one state: invariants, `eventually` (by a small
/// bounded search along progress actions) and the `sometimes` goals it reaches.
struct PropertyEvaluator<M: Model>: Sendable {
    let model: M
    let properties: [Property<M>]
    let checkEventually: Bool
    /// Indices of the `sometimes` properties, in declaration order.
    let sometimes: [Int]

    init(model: M, checkEventually: Bool) {
        self.model = model
        let properties = model.properties
        self.properties = properties
        self.checkEventually = checkEventually
        sometimes = properties.indices.filter { properties[$0].kind == .sometimes }
        precondition(sometimes.count <= 64, "at most 64 sometimes properties")
    }

    /// All `sometimes` properties reached, as a bit mask over ``sometimes``.
    var allReached: UInt64 { sometimes.count == 64 ? .max : (1 << UInt64(sometimes.count)) - 1 }

    /// The first property `state` violates: its index and message.
    func firstViolation(_ state: M.State, memo: inout M.Memo) -> (property: Int, message: String)? {
        for (index, property) in properties.enumerated() {
            switch property.check {
            case .always(let violation):
                if let message = violation(state) { return (index, message) }
            case .eventually(let trigger, let goal, let within, let progress):
                guard checkEventually, trigger(state) else { continue }
                if !reaches(from: state, goal: goal, within: within, progress: progress, memo: &memo) {
                    return (index, "no path of at most \(within) progress steps reaches the goal")
                }
            case .sometimes:
                continue
            }
        }
        return nil
    }

    /// The `sometimes` properties `state` satisfies, as a mask over ``sometimes``.
    func reached(_ state: M.State, pending: UInt64) -> UInt64 {
        var mask: UInt64 = 0
        for (bit, index) in sometimes.enumerated() where pending & (1 << UInt64(bit)) != 0 {
            if case .sometimes(let holds) = properties[index].check, holds(state) { mask |= 1 << UInt64(bit) }
        }
        return mask
    }

    /// A bounded breadth-first search along progress actions. The frontiers are tiny
    /// (progress actions are few), so duplicates are found by a linear scan of the
    /// states seen: cheaper than hashing into a set per trigger state.
    private func reaches(
        from start: M.State, goal: (M.State) -> Bool, within steps: Int,
        progress: @escaping @Sendable (M.Action) -> Bool,
        memo: inout M.Memo
    ) -> Bool {
        if goal(start) { return true }
        var seen = [start]
        var frontier = 0..<1
        for _ in 0..<steps {
            var found = false
            for index in frontier {
                model.expand(seen[index], memo: &memo, where: progress) { _, _, successor in
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
