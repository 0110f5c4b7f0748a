/// The order a ``ModelChecker`` visits states in.
///
/// ```swift
/// var options = CheckOptions()
/// options.order = .depthFirst   // bounded memory for a space too big to keep
/// let result = ModelChecker(model).run(options)
/// ```
///
/// Named for what it orders: "strategy" is the simulator's word for the executor's job
/// order (`SchedulingStrategy`), which has nothing to do with how the checker searches.
/// The raw values are the spellings the statistics line prints (`bfs`, `dfs`).
public enum SearchOrder: String, Sendable {
    /// Finds shortest counterexamples; keeps every state (parent pointers).
    case breadthFirst = "bfs"
    /// Keeps only 64-bit fingerprints and the current path: bounded memory, paths not shortest.
    case depthFirst = "dfs"
}
