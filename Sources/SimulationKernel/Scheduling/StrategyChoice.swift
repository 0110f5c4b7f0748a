/// The executor's scheduling strategy as a value: what a scenario stores, what a trace's
/// `strategy:` line spells, and what builds the runtime ``SchedulingStrategy``.
///
/// ```swift
/// let choice = StrategyChoice.pct(seed: 9, depth: 3)
/// choice.description          // "pct seed=9 depth=3 steps=10000" (the trace spelling)
/// choice.kind                 // .pct (the command-line name)
/// choice.withStrategy { Simulation.run(strategy: $0, clock: clock) { … } }
/// ```
///
/// One type from the generator to the trace file and back, so there is nothing to convert
/// and nothing a conversion could lose.
public enum StrategyChoice: Hashable, Sendable, CustomStringConvertible {
    /// Arrival order (``FIFOScheduling``).
    case fifo
    /// Uniformly random among the ready jobs (``RandomScheduling``).
    case random(seed: UInt64)
    /// Probabilistic concurrency testing (``PCTScheduling``).
    case pct(seed: UInt64, depth: Int, expectedSteps: Int = PCTScheduling.defaultExpectedSteps)

    /// A strategy's name without its parameters: the command line's `--strategy` value.
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        case fifo, random, pct
    }

    /// The name without parameters.
    public var kind: Kind {
        switch self {
        case .fifo: .fifo
        case .random: .random
        case .pct: .pct
        }
    }

    /// The strategy of `kind` that the scenario generator gives a run: its seed is
    /// `seed`, PCT looks for bugs of depth 3.
    public static func generated(_ kind: Kind, seed: UInt64) -> StrategyChoice {
        switch kind {
        case .fifo: .fifo
        case .random: .random(seed: seed)
        case .pct: .pct(seed: seed, depth: 3)
        }
    }

    /// The trace spelling: `fifo`, `random seed=N`, `pct seed=N depth=D steps=S`.
    public var description: String {
        switch self {
        case .fifo: "fifo"
        case .random(let seed): "random seed=\(seed)"
        case .pct(let seed, let depth, let steps): "pct seed=\(seed) depth=\(depth) steps=\(steps)"
        }
    }

    /// Runs `body` with the runtime strategy this value describes.
    public func withStrategy<Result>(_ body: (any SchedulingStrategy) throws -> Result) rethrows -> Result {
        switch self {
        case .fifo: try body(FIFOScheduling())
        case .random(let seed): try body(RandomScheduling(seed: seed))
        case .pct(let seed, let depth, let steps):
            try body(PCTScheduling(seed: seed, depth: depth, expectedSteps: steps))
        }
    }
}
