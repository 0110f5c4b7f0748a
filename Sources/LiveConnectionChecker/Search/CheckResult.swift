import Foundation

/// How to search.
///
/// ```swift
/// var options = CheckOptions()
/// options.maxDepth = 30
/// options.threads = 2
/// let result = ModelChecker(model).run(options)
/// ```
public struct CheckOptions: Sendable {
    /// The order states are visited in (`livesim check --dfs` picks depth-first).
    public var order: SearchOrder = .breadthFirst
    /// States deeper than this are not expanded (`nil`: no bound).
    public var maxDepth: Int? = nil
    /// Stop after storing this many distinct states (`nil`: no bound).
    public var maxStates: Int? = nil
    /// Worker threads for breadth-first expansion (depth-first always uses one).
    public var threads: Int = 1
    /// Check `eventually` properties (each costs a small bounded search per trigger state).
    public var checkEventually = true
    /// Called as the search goes (after each breadth-first level; every 65,536 new states
    /// depth-first) with the statistics so far, from the searching thread. For progress
    /// displays: it observes, it cannot steer the search.
    public var progress: (@Sendable (SearchStatistics) -> Void)? = nil

    public init() {}
}

/// What a search found and how much work it took, in SPIN's and TLC's terms.
///
/// ```swift
/// let result = ModelChecker(model).run()
/// print(result.statistics)   // "1204 distinct states, 15311 generated, depth 17, …"
/// if !result.passed { ... }
/// ```
public struct CheckResult<M: Model>: Sendable {
    /// The verdict.
    public enum Outcome: Sendable {
        /// Every property held on every state explored, and every `sometimes` was reached.
        case passed
        /// A property failed.
        case violated(PropertyViolation<M>)
        /// Nothing failed, but the search stopped at a depth or state bound before these
        /// `sometimes` goals were met: they may lie beyond the bound. Not a violation (the
        /// model may well do these things) and not a pass (it was not shown to).
        case notReachedWithinBound([String])
    }

    public var outcome: Outcome
    public var statistics: SearchStatistics

    @usableFromInline init(outcome: Outcome, statistics: SearchStatistics) {
        self.outcome = outcome
        self.statistics = statistics
    }

    /// True when nothing failed and every `sometimes` goal was reached.
    public var passed: Bool {
        if case .passed = outcome { return true }
        return false
    }

    /// The `sometimes` goals a bounded search did not reach (empty otherwise).
    public var notReachedWithinBound: [String] {
        if case .notReachedWithinBound(let names) = outcome { return names }
        return []
    }

    /// The violation, if any.
    public var violation: PropertyViolation<M>? {
        if case .violated(let violation) = outcome { return violation }
        return nil
    }
}

/// The figures of one search.
///
/// ```swift
/// print(result.statistics.distinctStatesPerSecond)
/// ```
public struct SearchStatistics: Sendable, CustomStringConvertible {
    /// Successors computed, duplicates included (TLC's "states generated").
    public var statesGenerated = 0
    /// States stored in the visited set.
    public var distinctStates = 0
    /// The deepest level stored.
    public var depthReached = 0
    /// True if the whole reachable space (within the depth bound) was explored; false if
    /// the state bound stopped the search or a violation ended it.
    public var exhausted = false
    /// True if the depth bound cut some paths (states at the bound had successors).
    public var depthBoundHit = false
    /// Wall-clock seconds of the search (not of the model's setup).
    public var seconds = 0.0
    /// Bytes held by the search's own structures at the end (states, parents, visited set).
    public var memoryBytes = 0
    /// Worker threads used.
    public var threads = 1
    /// The order the search visited states in.
    public var order = SearchOrder.breadthFirst

    @usableFromInline init() {}

    /// Distinct states per wall-clock second.
    public var distinctStatesPerSecond: Double { seconds > 0 ? Double(distinctStates) / seconds : 0 }
    /// Generated states per wall-clock second.
    public var generatedStatesPerSecond: Double { seconds > 0 ? Double(statesGenerated) / seconds : 0 }
    /// The search's memory per distinct state.
    public var bytesPerState: Double { distinctStates > 0 ? Double(memoryBytes) / Double(distinctStates) : 0 }

    public var description: String {
        let rate = Int(distinctStatesPerSecond.rounded())
        let memory = Double(memoryBytes) / 1_048_576
        let bound = exhausted ? (depthBoundHit ? "depth-bounded" : "exhaustive") : "incomplete"
        return "\(statesGenerated) states generated, \(distinctStates) distinct, depth \(depthReached) (\(bound)), "
            + "\(String(format: "%.2f", seconds)) s, \(rate) distinct states/s, "
            + "\(String(format: "%.1f", memory)) MiB (\(String(format: "%.1f", bytesPerState)) B/state), "
            + "\(order.rawValue), \(threads) thread\(threads == 1 ? "" : "s")"
    }
}
