import LiveConnection

/// Depth-first search with bounded memory: the visited set keeps only 64-bit
/// fingerprints (10 bytes a slot with the depth), and the path lives on a stack.
///
/// Use it when the breadth-first state array would not fit. The counterexample it finds
/// is the path it happened to be on, not necessarily a shortest one, and a fingerprint
/// collision can hide a state (see ``FingerprintSet``). Single-threaded: parallel
/// depth-first search needs a concurrent visited set, and the breadth-first mode is
/// where the cores go.
@usableFromInline final class DepthFirstSearch<M: Model> {
    @usableFromInline let model: M
    @usableFromInline let options: CheckOptions
    @usableFromInline let evaluator: PropertyEvaluator<M>
    @usableFromInline var visited = FingerprintSet(capacity: 1 << 16)
    @usableFromInline var statistics = SearchStatistics()
    @usableFromInline var memo: M.Memo
    /// The buffer of the `eventually` searches.
    @usableFromInline var scratch: [M.State] = []
    @usableFromInline var reached: UInt64 = 0

    @usableFromInline struct Frame {
        @usableFromInline var state: M.State
        @usableFromInline var depth: Int
        /// Successors with their emission ordinals (the action is rebuilt from the
        /// ordinal only for a counterexample: building every action is costly).
        @usableFromInline var successors: [Successor]
        @usableFromInline var cursor = 0
        /// How this frame's state was reached from the frame below (nil for a root).
        @usableFromInline var step: Successor?

        @inlinable init(state: M.State, depth: Int, successors: [Successor], step: Successor?) {
            self.state = state
            self.depth = depth
            self.successors = successors
            self.step = step
        }
    }

    @usableFromInline struct Successor {
        @usableFromInline var state: M.State
        @usableFromInline var ordinal: Int

        @inlinable init(state: M.State, ordinal: Int) {
            self.state = state
            self.ordinal = ordinal
        }
    }

    @inlinable init(model: M, options: CheckOptions) {
        self.model = model
        self.options = options
        evaluator = PropertyEvaluator(model: model, checkEventually: options.checkEventually)
        memo = model.makeMemo()
    }

    @inlinable func run() -> CheckResult<M> {
        let start = ContinuousClock.now
        statistics.order = .depthFirst
        statistics.threads = 1
        let outcome = search()
        statistics.seconds = searchSeconds(ContinuousClock.now - start)
        statistics.distinctStates = visited.count
        statistics.memoryBytes = visited.bytes
        return CheckResult(outcome: outcome, statistics: statistics)
    }

    @inlinable func search() -> CheckResult<M>.Outcome {
        let limit = options.maxStates ?? .max
        let maxDepth = options.maxDepth ?? .max
        var truncated = false
        for root in model.initialStates {
            var stack: [Frame] = []
            if let outcome = visit(root, depth: 0, step: nil, stack: &stack, maxDepth: maxDepth) { return outcome }
            while var frame = stack.popLast() {
                guard frame.cursor < frame.successors.count else { continue }
                let step = frame.successors[frame.cursor]
                frame.cursor += 1
                stack.append(frame)
                if visited.count >= limit {
                    truncated = true
                    break
                }
                if let outcome = visit(
                    step.state, depth: frame.depth + 1, step: step, stack: &stack, maxDepth: maxDepth)
                {
                    return outcome
                }
            }
            if truncated { break }
        }
        statistics.exhausted = !truncated
        statistics.distinctStates = visited.count
        return evaluator.verdict(reached: reached, statistics: statistics, initial: model.initialStates[0])
    }

    /// Checks a newly reached state and pushes it if it must be explored.
    @inlinable func visit(
        _ state: M.State, depth: Int, step: Successor?, stack: inout [Frame], maxDepth: Int
    ) -> CheckResult<M>.Outcome? {
        // Without a depth bound, the depth a state was first met at does not matter: a
        // revisit at a shallower depth would only explore the same subtree again.
        guard visited.visit(model.fingerprint(state), depth: options.maxDepth == nil ? 0 : depth) else { return nil }
        statistics.depthReached = max(statistics.depthReached, depth)
        if let found = evaluator.firstViolation(state, memo: &memo, scratch: &scratch) {
            // The path: each frame's state with the ordinal of the successor taken from it.
            var path: [(parent: M.State, ordinal: Int)] = []
            for (frame, next) in zip(stack, stack.dropFirst().map(\.step) + [step]) {
                if let next { path.append((frame.state, next.ordinal)) }
            }
            let initial = stack.first?.state ?? state
            let property = evaluator.properties[found.property]
            return .violated(
                PropertyViolation(
                    property: property.name, kind: property.kind, message: found.message,
                    counterexample: ModelChecker.counterexample(model: model, path: path, initial: initial)))
        }
        if reached != evaluator.allReached { reached |= evaluator.reached(state, pending: ~reached) }
        guard depth < maxDepth else {
            statistics.depthBoundHit = true
            return nil
        }
        var successors: [Successor] = []
        var ordinal = 0
        model.expand(state, memo: &memo, where: nil) { _, _, next in
            if next != state { successors.append(Successor(state: next, ordinal: ordinal)) }
            ordinal += 1
        }
        statistics.statesGenerated += ordinal
        if visited.count % 65_536 == 0, let progress = options.progress {
            statistics.distinctStates = visited.count
            progress(statistics)
        }
        stack.append(Frame(state: state, depth: depth, successors: successors, step: step))
        return nil
    }
}
