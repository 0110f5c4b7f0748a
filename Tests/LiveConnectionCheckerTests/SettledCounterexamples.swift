import Foundation
import LiveConnection
import LiveConnectionSimulator
import TestScheduling
import Testing

@testable import LiveConnectionChecker

/// Each planted variant's counterexample in the standard world (`livesim check --variant`'s),
/// found once per test run, and written as a trace and settled once; and its counterexample
/// in the smallest world where it shows, found once for the two tests that read it.
///
/// ``BrokenVariantTests`` checks its property and length, and three tests of
/// ``CounterexampleTraceTests`` write, settle and replay it. In a debug build each search
/// costs seconds, and each settling up to 256 simulated replays: asked once, they cost a
/// third (issue 15, docs/benchmarks.md). The determinism test does not use this: it
/// computes twice on purpose.
enum SettledCounterexamples {
    /// The first violation a default check of `variant` in `world` finds: the standard world
    /// (`livesim check --variant`'s) unless a test names the smallest world where the bug shows.
    static func violation(_ variant: String, in world: ConnectionBounds = .standard) throws
        -> PropertyViolation<ConnectionModel>?
    {
        try violations.value(for: Search(variant: variant, world: world)) {
            try ConnectionModel(bounds: world, variant: try #require(LogicVariant.named(variant))).check().violation
        }
    }

    /// The counterexample of `variant` as the checker writes it, before settling.
    static func written(_ variant: String) throws -> CounterexampleTrace {
        let model = try ConnectionModel(variant: try #require(LogicVariant.named(variant)))
        return model.trace(of: try #require(try violation(variant), "\(variant) passed"))
    }

    /// The counterexample of `variant` written and settled (``CounterexampleTrace/settle(schedules:)``),
    /// with the replay that settled it.
    static func settled(_ variant: String) throws -> (written: CounterexampleTrace, replay: CounterexampleReplay) {
        try settledTraces.value(for: variant) {
            var written = try Self.written(variant)
            let replay = try written.settle()
            return (written, replay)
        }
    }

    private struct Search: Hashable {
        var variant: String
        var world: ConnectionBounds
    }

    private static let violations = OncePerKey<Search, PropertyViolation<ConnectionModel>?>()
    private static let settledTraces = OncePerKey<
        String, (written: CounterexampleTrace, replay: CounterexampleReplay)
    >()
}
