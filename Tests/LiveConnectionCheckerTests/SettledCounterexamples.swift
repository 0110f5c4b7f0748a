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
/// ``CheckerCounterexampleTests`` write, settle and replay it. In a debug build each search
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

    /// The world `variant`'s counterexample trace is written from: the standard world, unless
    /// this run leaves its counterexample there out (``TestScale/standardWorldDepth``: in a debug
    /// run, the four searches to depth 5 to 8); then the smallest world where it shows,
    /// at the same minimal length (``BrokenVariantTests/expectations``).
    static func traceWorld(_ variant: String) -> ConnectionBounds {
        guard let expectation = BrokenVariantTests.expectations.first(where: { $0.variant == variant }),
            !TestScale.standardWorldDepth.reaches(expectation.length)
        else { return .standard }
        return expectation.world
    }

    /// The counterexample of `variant` as the checker writes it, before settling (from
    /// ``traceWorld(_:)``: `livesim check --variant`'s standard world at full size).
    static func written(_ variant: String) throws -> CheckerCounterexample {
        let world = traceWorld(variant)
        let model = try ConnectionModel(bounds: world, variant: try #require(LogicVariant.named(variant)))
        return model.trace(of: try #require(try violation(variant, in: world), "\(variant) passed"))
    }

    /// The counterexample of `variant` written and settled (``CheckerCounterexample/settle(interleavings:)``),
    /// with the replay that settled it.
    static func settled(_ variant: String) throws -> (written: CheckerCounterexample, replay: CounterexampleReplay) {
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
        String, (written: CheckerCounterexample, replay: CounterexampleReplay)
    >()
}
