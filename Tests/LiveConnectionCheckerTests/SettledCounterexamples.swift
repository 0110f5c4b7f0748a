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

/// Values computed once per test run, whoever asks first. A second test asking for a key
/// being computed waits for it rather than computing it beside it: the parameterized tests
/// that share a search run side by side, and each search already takes every core (its
/// threads are Dispatch's, so the wait holds back no work the search needs).
private final class OncePerKey<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let values = Locked<[Key: Value]>([:])
    /// One lock per key, held while its value is computed.
    private let computing = Locked<[Key: NSLock]>([:])

    func value(for key: Key, _ compute: () throws -> Value) throws -> Value {
        let gate = computing.withLock { gates in
            if let gate = gates[key] { return gate }
            let gate = NSLock()
            gates[key] = gate
            return gate
        }
        gate.lock()
        defer { gate.unlock() }
        if let known = values.withLock({ $0[key] }) { return known }
        let computed = try compute()
        values.withLock { $0[key] = computed }
        return computed
    }
}
