/// Explores every reachable state of a ``Model`` and checks its properties.
///
/// ```swift
/// var options = CheckOptions()
/// options.threads = 2
/// let result = ModelChecker(MyModel()).run(options)
/// print(result.statistics)
/// if let violation = result.violation {
///     print("\(violation.property): \(violation.message)")
///     for step in violation.counterexample.steps { print(step.action) }
/// }
/// ```
///
/// Breadth-first (the default) stores every state once with a parent pointer, so the
/// counterexample it reports is a shortest one; depth-first stores only fingerprints and
/// the current path, for spaces too big to keep.
public struct ModelChecker<M: Model>: Sendable {
    public let model: M

    public init(_ model: M) { self.model = model }

    /// Runs one search.
    @inlinable public func run(_ options: CheckOptions = CheckOptions()) -> CheckResult<M> {
        switch options.order {
        case .breadthFirst: BreadthFirstSearch(model: model, options: options).run()
        case .depthFirst: DepthFirstSearch(model: model, options: options).run()
        }
    }

    /// Rebuilds the path to `target` by replaying emission ordinals from its root.
    @inlinable static func counterexample(model: M, path: [(parent: M.State, ordinal: Int)], initial: M.State)
        -> CounterexamplePath<M>
    {
        var memo = model.makeMemo()
        var steps: [CounterexamplePath<M>.Step] = []
        for (parent, ordinal) in path {
            var seen = 0
            var step: CounterexamplePath<M>.Step?
            model.expand(parent, memo: &memo, where: nil) { action, choice, next in
                if seen == ordinal { step = .init(action: action(), choice: choice, state: next) }
                seen += 1
            }
            guard let step else {
                preconditionFailure("replaying ordinal \(ordinal): the model's expansion is not deterministic")
            }
            steps.append(step)
        }
        return CounterexamplePath(initial: initial, steps: steps)
    }
}
