import Foundation

/// How large an instance each proof with two sizes runs: all of it in CI's release step, a
/// smaller instance of the same proof in the README's debug `swift test`.
///
/// ```swift
/// let explored = TestScale.simulatorVariantSeeds.trailing(testCase.seeds)
/// let seeds = 0..<UInt64(TestScale.shippedMachineSeeds.count)
/// ```
///
/// Unoptimized, the model checker's search and the simulator run ten to thirty times slower
/// than in release, and issue 30 asks the debug `swift test` to finish in 60 s on two cores.
/// The maintainers' decision (issue 30, item 4): the debug run may run the smaller instance
/// of each proof — one per proof, never none — and CI's release step
/// (`swift test -c release -Xswiftc -enable-testing`, which sets `LIVESIM_TEST_SCALE=full`,
/// docs/ci.md) runs every full-size search on every submission. Every size lives here, in
/// ``proofs``, so that `ProofSizesDocumentedTests` can hold docs/ci.md's table to them and
/// refuse a debug size of zero; a test asks its ``ProofSize`` and never reads the build or
/// the environment itself.
public enum TestScale {
    /// True in an optimized build, or in any build run with `LIVESIM_TEST_SCALE=full`.
    public static let isFull: Bool = {
        #if DEBUG
            ProcessInfo.processInfo.environment["LIVESIM_TEST_SCALE"] == "full"
        #else
            true
        #endif
    }()

    /// The checker's one exhaustive check of the shipped machine, in a world with every kind
    /// of input: without the second endpoint (a `connect(to:)` that moves a live connection
    /// elsewhere) it walks 268,380 states instead of 536,712.
    public static let shippedMachineEndpoints = ProofSize(
        test: "LiveConnectionCheckerTests/ConnectionModelTests.shippedMachinePasses",
        unit: "endpoints in the exhausted world", debug: 1,
        full: 2)

    /// The same check's length: a debug run walks every behaviour of up to 12 steps of its
    /// one-endpoint world (55,593 states of 268,380, 27 steps deep; 2.3 CPU s, not 12), half
    /// again as long as the longest planted bug's counterexample (never-resets-backoff's, 8 steps).
    public static let shippedMachineDepth = ProofSize(
        test: "LiveConnectionCheckerTests/ConnectionModelTests.shippedMachinePasses",
        unit: "steps of every behaviour searched", debug: 12, full: nil)

    /// The checker's exhaustive check of the shipped machine against the server's log (two
    /// sequence numbers, a reconnect through a reset and the retry): 418,995 states, 28 steps
    /// deep, the costliest test of the debug run (21 CPU s). A debug run checks every
    /// behaviour of up to 10 steps (27,089 states, 1.3 CPU s), which holds each planted log
    /// mistake's counterexample in that world (8 steps at most, `ServerLogTests.caught`).
    public static let serverLogDepth = ProofSize(
        test: "LiveConnectionCheckerTests/ServerLogTests.shippedMachinePasses",
        unit: "steps of every behaviour searched", debug: 10, full: nil)

    /// Each planted variant's counterexample in the standard world (`livesim check --variant`'s),
    /// searched for those whose counterexample is at most this many steps long. Every variant
    /// is still searched in the smallest world where it shows, at its minimal length, in both
    /// runs; the standard world's searches to depth 5 and more (forgets-pings; forgets-resume,
    /// double-reconnect; never-resets-backoff at 8) were the costliest of the debug run. Its traces' tests (`CheckerCounterexampleTests`) follow the same bound.
    public static let standardWorldDepth = ProofSize(
        test: "LiveConnectionCheckerTests/BrokenVariantTests.foundWithShortestCounterexample",
        unit: "longest standard-world counterexample searched (steps)", debug: 4, full: nil)

    /// The pre-check's soundness: every state of a breadth-first walk that fails an invariant
    /// must be one the pre-check lets through; the planted bugs' first failing states lie in
    /// the first few thousand (each of the three planted variants fails within 5,000).
    public static let preCheckStates = ProofSize(
        test: "LiveConnectionCheckerTests/SearchOrderTests.preCheckIsSound", unit: "states visited per variant",
        debug: 5_000, full: 30_000)

    /// One-hour swarm runs of the shipped machine that must pass every invariant.
    public static let shippedMachineSeeds = ProofSize(
        test: "LiveConnectionSimulatorTests/SimulationRunTests.correctMachinePasses",
        unit: "seeds (one simulated hour each)", debug: 4,
        full: 16)

    /// The parallel search's space (distinct and generated counts, depth) against a
    /// `Set`-based search's, thread count by thread count: one and two threads in a debug
    /// run, three too in the release step (a count that divides no level evenly).
    public static let sameSpaceThreadCounts = ProofSize(
        test: "LiveConnectionCheckerTests/SearchOrderTests.sameSpace",
        unit: "thread counts held to the reference", debug: 2, full: 3)

    /// The world the search's own tests walk, in distinct states: the parallel search's space
    /// against the `Set`-based reference's (``sameSpaceThreadCounts``) and depth-first search's
    /// against it (``depthFirstSpaceStates``), one reference search per run for both. At full
    /// size it has network faults (down, freeze, thaw) and no path reports; a debug run swaps
    /// the faults for the path's two reports, which keeps levels of more than 4,096 states (so
    /// two threads still expand and merge a level in parallel) at 56 % of the states.
    public static let searchSpaceStates = ProofSize(
        test: "LiveConnectionCheckerTests/SearchOrderTests.sameSpace",
        unit: "distinct states of the compared world", debug: 42_258, full: 75_831)

    /// Depth-first search's coverage, held to the same reference in the same world.
    public static let depthFirstSpaceStates = ProofSize(
        test: "LiveConnectionCheckerTests/SearchOrderTests.depthFirstCoversTheSpace",
        unit: "distinct states of the compared world", debug: searchSpaceStates.debug, full: searchSpaceStates.full)

    /// The expansion whose filter answers are remembered per key, against the plain filtered
    /// one, on the first states of a breadth-first walk.
    public static let keyedFilterStates = ProofSize(
        test: "LiveConnectionCheckerTests/SearchOrderTests.keyedFilterMatchesPlainFilter",
        unit: "states visited", debug: 10_000, full: 20_000)

    /// The search's storage with a user's model whose states hold a `String`: the side of the
    /// cube it exhausts. At 45 (91,125 states) the states still fill more than one chunk of
    /// their column (65,536 of 40 bytes) and levels up to 1,500 wide are expanded and merged
    /// on two threads; at 60, 216,000 states.
    public static let cubeSide = ProofSize(
        test: "LiveConnectionCheckerTests/GenericSearchTests.exhaustsTheCube",
        unit: "side of the exhausted cube", debug: 45, full: 60)

    /// The parallel search's counterexample against a sequential one's, on one and two
    /// threads: the first variants of the list in a debug run, every variant with a bug in
    /// that world in the release step.
    public static let sameCounterexampleVariants = ProofSize(
        test: "LiveConnectionCheckerTests/SearchOrderTests.sameCounterexample",
        unit: "planted variants compared", debug: 2, full: nil)

    /// The shipped manager against each hostile server for 20 simulated minutes, then a
    /// healthy one: the seeds run per server (each a different manager seed and job order).
    public static let hostileServerSeeds = ProofSize(
        test: "LiveConnectionSimulatorTests/HostileServerTests.shippedManagerKeepsToPolicy",
        unit: "seeds per hostile server (30 simulated minutes each)", debug: 1, full: 3)

    /// The simulator's planted variants: the seeds explored, counted back from the one that
    /// breaks each (the whole prefix from 0 at full size; double-reconnect's alone is 92
    /// simulated hours).
    public static let simulatorVariantSeeds = ProofSize(
        test: "LiveConnectionSimulatorTests/BrokenVariantTests.caught",
        unit: "seeds explored per variant, ending at the one that breaks it", debug: 1, full: nil)

    /// The simulator's shrinker on the planted bugs: found, shrunk to ten actions at most, the
    /// trace replayed. A debug run shrinks the first (never-resets-backoff; the CLI's tests
    /// shrink the other two), the release step all three. Each one's shrunk trace is
    /// committed under `Traces/` and replayed in both (`TraceRegressionTests`).
    public static let shrunkPlantedBugs = ProofSize(
        test: "LiveConnectionSimulatorTests/CounterexampleTests.plantedBug",
        unit: "planted bugs found and shrunk", debug: 1, full: nil)

    /// The victims' flaws from the wire: the seeds explored, counted back from each finding's
    /// own. At full size every seed from 0 is explored and each finding is shrunk, as
    /// `livesim explore --client` does; a debug run leaves the shrunk form to the committed
    /// trace (replayed by `ClientTraceRegressionTests`).
    public static let victimSeeds = ProofSize(
        test: "LiveConnectionWireTests/VictimFindingsTests.found",
        unit: "seeds explored per finding, ending at its own", debug: 1,
        full: nil)

    /// Every proof with two sizes, in docs/ci.md's order.
    public static let proofs: [ProofSize] = [
        shippedMachineEndpoints, shippedMachineDepth, serverLogDepth, standardWorldDepth, preCheckStates,
        sameSpaceThreadCounts, searchSpaceStates, depthFirstSpaceStates, keyedFilterStates, cubeSide,
        sameCounterexampleVariants, shippedMachineSeeds,
        hostileServerSeeds, simulatorVariantSeeds, shrunkPlantedBugs,
        victimSeeds,
    ]
}

/// One proof's two sizes: its debug instance and its full one (`nil`: all of it).
public struct ProofSize: Sendable, Equatable {
    /// The test, as `Target/Suite.function` (its test target, struct and function), as docs/ci.md names it.
    public let test: String
    /// What the number counts.
    public let unit: String
    /// The size the README's debug `swift test` runs; never zero.
    public let debug: Int
    /// The size CI's release step runs; `nil` when it runs all of it.
    public let full: Int?

    /// The size this run uses: `nil` when it runs all of it.
    public var current: Int? { TestScale.isFull ? full : debug }

    /// True when this run runs all of it.
    public var isAll: Bool { current == nil }

    /// This run's size, for a proof whose full size is a number (one whose full size is all
    /// of it asks ``isAll`` or ``trailing(_:)``).
    public var count: Int {
        guard let current else { preconditionFailure("\(test) runs all of it: ask isAll or trailing(_:)") }
        return current
    }

    /// Whether this run's size reaches `size` (a proof whose full size is all of it reaches every size).
    public func reaches(_ size: Int) -> Bool { current.map { size <= $0 } ?? true }

    /// The first ``current`` of `items` (all of them when the run runs all of it).
    public func leading<Item>(_ items: [Item]) -> [Item] { current.map { Array(items.prefix($0)) } ?? items }

    /// The last ``current`` seeds of `seeds` (all of them when the run runs all of it).
    public func trailing(_ seeds: Range<UInt64>) -> Range<UInt64> {
        guard let current else { return seeds }
        return max(seeds.lowerBound, seeds.upperBound - min(UInt64(current), seeds.upperBound))..<seeds.upperBound
    }
}
