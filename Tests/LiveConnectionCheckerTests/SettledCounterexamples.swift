import Foundation
import LiveConnection
import LiveConnectionSimulator
import TestScheduling
import Testing

@testable import LiveConnectionChecker

/// Each planted variant's counterexample in the standard world (`livesim check --variant`'s),
/// found once per test run, and written as a trace and settled once.
///
/// ``BrokenVariantTests`` checks its property and length, and three tests of
/// ``CounterexampleTraceTests`` write, settle and replay it. In a debug build each search
/// costs seconds, and each settling up to 256 simulated replays: asked once, they cost a
/// third (issue 15, docs/benchmarks.md). The determinism test does not use this: it
/// computes twice on purpose.
enum SettledCounterexamples {
    /// The first violation a default check of `variant` in the standard world finds.
    static func violation(_ variant: String) throws -> PropertyViolation<ConnectionModel>? {
        if let known = violations.withLock({ $0[variant] }) { return known }
        // Computed outside the lock: two threads asking for the same variant at once both
        // compute it (the same value: the search is deterministic); nobody waits on a search.
        let found = try ConnectionModel(variant: try #require(LogicVariant.named(variant))).check().violation
        violations.withLock { $0[variant] = .some(found) }
        return found
    }

    /// The counterexample of `variant` as the checker writes it, before settling.
    static func written(_ variant: String) throws -> CounterexampleTrace {
        let model = try ConnectionModel(variant: try #require(LogicVariant.named(variant)))
        return model.trace(of: try #require(try violation(variant), "\(variant) passed"))
    }

    /// The counterexample of `variant` written and settled (``CounterexampleTrace/settle(schedules:)``),
    /// with the replay that settled it.
    static func settled(_ variant: String) throws -> (written: CounterexampleTrace, replay: CounterexampleReplay) {
        if let known = settledTraces.withLock({ $0[variant] }) { return known }
        var written = try Self.written(variant)
        let replay = try written.settle()
        settledTraces.withLock { $0[variant] = (written, replay) }
        return (written, replay)
    }

    private static let violations = Locked<[String: PropertyViolation<ConnectionModel>?]>([:])
    private static let settledTraces = Locked<[String: (written: CounterexampleTrace, replay: CounterexampleReplay)]>(
        [:])
}
