import LiveConnection
import LiveConnectionChecker
import Testing

/// The proof of power: each planted bug is found, named, and shown with a shortest
/// counterexample; one step less and the search finds nothing.
@Suite("The checker finds every planted bug")
struct BrokenVariantTests {
    struct Expectation: Sendable, CustomTestStringConvertible {
        var variant: MachineVariant
        var property: String
        var length: Int
        var testDescription: String { "\(variant) → \(property) in \(length)" }
    }

    /// The smallest world where every bug shows: one topic (for resubscription), no
    /// commands, no sequence numbers. The minimal lengths are the same as in the standard one.
    static var world: ConnectionBounds {
        var bounds = ConnectionBounds()
        bounds.topics = 1
        bounds.commands = 0
        bounds.serverLog = 0
        return bounds
    }

    static let expectations: [Expectation] = [
        // connect A, connect B (g1 dies), late callback of g1 relabeled as g2's.
        .init(variant: .noGenerationCheck, property: "stale-inputs-change-nothing", length: 3),
        // connect, subscribe while connecting, opened (no subscribe frame), flushed → open.
        .init(variant: .noResubscribe, property: "resubscribe-before-open", length: 4),
        // connect, fail, retry, opened, flushed → open, fail: drawn for 2 failures, not 1.
        .init(variant: .noBackoffReset, property: "backoff-within-policy", length: 6),
        // connect: open is reported with the socket request.
        .init(variant: .openBeforeHandshake, property: "open-only-after-handshake", length: 1),
        // connect, opened, flushed → open, ping, pong deadline, the receive loop's late failure.
        .init(variant: .doubleReconnect, property: "one-pending-reconnect", length: 6),
        // connect, opened, close 4003 (while resubscribing) → waiting instead of stopped.
        .init(variant: .forbiddenRetryable, property: "nothing-after-terminal-close", length: 3),
    ]

    @Test("breadth-first search finds the bug with a counterexample of minimal length", arguments: expectations)
    func foundWithShortestCounterexample(expectation: Expectation) throws {
        // The same in the standard world `livesim check --variant` uses.
        let standard = try ConnectionModel(variant: expectation.variant).check().violation
        #expect(standard?.property == expectation.property)
        #expect(standard?.counterexample.length == expectation.length)

        let model = try ConnectionModel(bounds: Self.world, variant: expectation.variant)
        let result = model.check()
        let violation = try #require(result.violation, "\(expectation.variant) passed: \(result.statistics)")
        #expect(violation.property == expectation.property)
        #expect(violation.kind == .always)
        #expect(violation.counterexample.length == expectation.length)

        // Minimal: with the depth bound one short of it, no invariant fails.
        var shorter = CheckOptions()
        shorter.maxDepth = expectation.length - 1
        shorter.checkEventually = false
        let bounded = model.check(shorter)
        #expect(
            bounded.violation == nil || bounded.violation?.kind == .sometimes,
            "a shorter counterexample exists: \(String(describing: bounded.violation?.property))")
    }

    @Test("the counterexample replays on a real machine with real generations", arguments: expectations)
    func counterexampleReplays(expectation: Expectation) throws {
        let model = try ConnectionModel(bounds: Self.world, variant: expectation.variant)
        let violation = try #require(model.check().violation)
        let replay = model.replay(violation.counterexample)
        #expect(replay.steps.count == expectation.length)
        #expect(replay.steps.map(\.number) == Array(1...expectation.length))
        // The first input always connects; every input step did something or was a no-op
        // intent, and the lines number each step.
        #expect(replay.steps.first?.action == .input(.connect(Endpoint(url: .init(string: "wss://a.example/live")!))))
        #expect(replay.lines.first?.hasPrefix("1. connect") == true)
        #expect(replay.lines.count == 2 * expectation.length)
    }

    @Test("depth-first search finds each bug too (its path need not be shortest)", arguments: expectations)
    func depthFirstFindsIt(expectation: Expectation) throws {
        var options = CheckOptions()
        options.strategy = .depthFirst
        options.maxDepth = expectation.length + 2
        options.checkEventually = false
        let result = try ConnectionModel(bounds: Self.world, variant: expectation.variant).check(options)
        let violation = try #require(result.violation)
        #expect(violation.kind == .always)
        #expect(violation.counterexample.length >= expectation.length)
    }

    @Test("the late callback in the generation counterexample comes from the dead connection")
    func staleCounterexampleUsesDeadGeneration() throws {
        let model = try ConnectionModel(bounds: Self.world, variant: .noGenerationCheck)
        let violation = try #require(model.check().violation)
        let last = try #require(model.replay(violation.counterexample).steps.last)
        guard case .late(let input) = last.action else {
            Issue.record("last step \(last.action) is not a late callback")
            return
        }
        #expect(input.generation == Generation(1))  // g2 is live: g1 is the dead one
    }
}
