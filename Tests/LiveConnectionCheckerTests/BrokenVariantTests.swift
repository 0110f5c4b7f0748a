import LiveConnection
import LiveConnectionChecker
import LiveConnectionSimulator
import TestScheduling
import Testing

/// The proof of power: each planted bug is found, named, and shown with a shortest
/// counterexample; one step less and the search finds nothing.
@Suite("The checker finds every planted bug", .computeBound)
struct BrokenVariantTests {
    struct Expectation: Sendable, CustomTestStringConvertible {
        var variant: String
        var property: String
        var length: Int
        /// The smallest world where the bug shows.
        var world: ConnectionBounds = BrokenVariantTests.world
        var testDescription: String { "\(variant) → \(property) in \(length)" }
    }

    /// The smallest world where most bugs show: one topic (for resubscription), no
    /// commands, no sequence numbers. The minimal lengths are the same as in the standard one.
    static var world: ConnectionBounds {
        var bounds = ConnectionBounds()
        bounds.topics = 1
        bounds.commands = 0
        bounds.serverLog = 0
        return bounds
    }

    static var worldWithACommand: ConnectionBounds {
        var bounds = world
        bounds.commands = 1
        return bounds
    }

    /// Every broken variant of the simulator the checker can see without real time. The
    /// issue's three planted bugs and its three machine variants come first.
    static let expectations: [Expectation] = [
        // connect A, connect B (g1 dies), late callback of g1 relabeled as g2's.
        .init(variant: "ignores-generations", property: "stale-inputs-change-nothing", length: 3),
        // connect, subscribe while connecting, opened (no subscribe frame), flushed → open.
        .init(variant: "skips-resubscribe", property: "resubscribe-before-open", length: 4),
        // connect, fail, retry, opened, flushed → open, heartbeat, pong (proved), fail:
        // drawn for 2 failures, not 1.
        .init(variant: "never-resets-backoff", property: "backoff-within-policy", length: 8),
        // connect: open is reported with the socket request.
        .init(variant: "reports-open-early", property: "open-only-after-handshake", length: 1),
        // connect, opened, flushed → open, ping, pong deadline, the receive loop's late failure.
        .init(variant: "double-reconnect", property: "one-pending-reconnect", length: 6),
        // connect, handshake 403 → waiting instead of stopped.
        .init(variant: "retries-terminal-close", property: "quiet-after-stop", length: 2),
        // connect A, connect B: g1 is never closed.
        .init(variant: "leaks-sockets", property: "single-live-transport", length: 2),
        // connect, opened, flushed → open, heartbeat: a ping with no deadline.
        .init(variant: "no-pong-deadline", property: "progress-is-armed", length: 4),
        // connect, send, opened, flushed: the command frame goes out twice.
        .init(
            variant: "duplicates-commands", property: "commands-at-most-once", length: 4,
            world: worldWithACommand),
        // open, fail, retry, opened, flushed: open without a resume frame.
        .init(variant: "forgets-resume", property: "resume-before-open", length: 6),
        // connect, fail: waiting with no retry armed.
        .init(variant: "gives-up", property: "progress-is-armed", length: 2),
        // connect A, connect B: the restart dials A.
        .init(variant: "keeps-first-endpoint", property: "endpoint-of-last-connect", length: 2),
        // connect, background: the socket is still opening in the background.
        .init(variant: "ignores-background", property: "quiet-in-background", length: 2),
        // connect, opened, flushed → open, heartbeat: the pong deadline is armed for P.
        .init(variant: "pong-deadline-of-p", property: "timers-armed-as-configured", length: 4),
        // connect, handshake 401: a retry is armed instead of a credentials refresh.
        .init(variant: "retries-expired-credentials", property: "expired-credentials-refreshed", length: 2),
        // path lost (not heard), connect: dialled without a path.
        .init(variant: "ignores-path", property: "quiet-without-path", length: 2),
        // connect, path lost → offline, path back (missed): nothing is dialled.
        .init(variant: "misses-path-return", property: "reconnects-when-path-returns", length: 3),
        // connect, opened, flushed: open reports attempt 0 after no failure.
        .init(variant: "misnumbers-open-attempt", property: "backoff-within-policy", length: 3),
        // connect, opened, flushed → open, ping (in flight), connect B: g1 goes and its ping is never answered.
        .init(variant: "forgets-pings", property: "pings-answered-once", length: 5),
    ]

    @Test("breadth-first search finds the bug with a counterexample of minimal length", arguments: expectations)
    func foundWithShortestCounterexample(expectation: Expectation) throws {
        // The same in the standard world `livesim check --variant` uses (searched once for
        // this test and the counterexample traces'), up to this run's depth
        // (``TestScale/standardWorldDepth``: all of them in CI's release step).
        let variant = try #require(LogicVariant.named(expectation.variant))
        if TestScale.standardWorldDepth.reaches(expectation.length) {
            let standard = try SettledCounterexamples.violation(expectation.variant)
            #expect(standard?.property == expectation.property)
            #expect(standard?.counterexample.length == expectation.length)
        }

        let model = try ConnectionModel(bounds: expectation.world, variant: variant)
        let violation = try #require(
            try SettledCounterexamples.violation(expectation.variant, in: expectation.world),
            "\(expectation.variant) passed")
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
        let variant = try #require(LogicVariant.named(expectation.variant))
        let model = try ConnectionModel(bounds: expectation.world, variant: variant)
        let violation = try #require(try SettledCounterexamples.violation(expectation.variant, in: expectation.world))
        let replay = model.replay(violation.counterexample)
        #expect(replay.steps.count == expectation.length)
        #expect(replay.steps.map(\.number) == Array(1...expectation.length))
        // The first input connects (or, for the path's bugs, reports the path gone: breadth
        // first tries that intent before the connect whose attempt it forbids); the lines
        // number each step.
        let connect = ConnectionAction.input(.connect(Endpoint(url: .init(string: "wss://a.example/live")!)))
        let first = replay.steps.first?.action
        #expect(first == connect || first == .input(.setPathViable(false)), "\(String(describing: first))")
        #expect(replay.lines.first.map { $0.hasPrefix("1. connect") || $0.hasPrefix("1. path unviable") } == true)
        #expect(replay.lines.count == 2 * expectation.length)
    }

    @Test("depth-first search finds each bug too (its path need not be shortest)", arguments: expectations)
    func depthFirstFindsIt(expectation: Expectation) throws {
        var options = CheckOptions()
        options.order = .depthFirst
        options.maxDepth = expectation.length + 2
        options.checkEventually = false
        let variant = try #require(LogicVariant.named(expectation.variant))
        let result = try ConnectionModel(bounds: expectation.world, variant: variant).check(options)
        let violation = try #require(result.violation)
        #expect(violation.kind == .always)
        #expect(violation.counterexample.length >= expectation.length)
    }

    @Test("the late callback in the generation counterexample comes from the dead connection")
    func staleCounterexampleUsesDeadGeneration() throws {
        let model = try ConnectionModel(bounds: Self.world, variant: try #require(.named("ignores-generations")))
        let violation = try #require(model.check().violation)
        let last = try #require(model.replay(violation.counterexample).steps.last)
        guard case .late(let input) = last.action else {
            Issue.record("last step \(last.action) is not a late callback")
            return
        }
        #expect(input.generation == Generation(1))  // g2 is live: g1 is the dead one
    }

    @Test(
        "every broken variant but five is listed here; one needs real time, one the events() stream, and an attempt limit and close frames' words the model has not"
    )
    func coverage() throws {
        let broken = Set(LogicVariant.all.dropFirst().map(\.name))
        #expect(
            broken.subtracting(Self.expectations.map(\.variant)) == [
                "retries-immediately", "replays-initial-phase", "gives-up-early", "forgets-close-code",
                "drops-close-reason",
            ])
        // Both searched in the world where the other bugs show at their minimal lengths.
        // The phase a new subscriber is given is the shell's, not the machine's effects:
        // the checker steps the machine only, so the stream's first event is the simulator's to judge.
        let replays = try ConnectionModel(bounds: Self.world, variant: try #require(.named("replays-initial-phase")))
        var bounded = CheckOptions()
        bounded.checkEventually = false
        bounded.maxDepth = 6
        #expect(replays.check(bounded).violation == nil)
        // A zero delay is a legal full-jitter draw: only the simulator's hot-loop bound,
        // which counts attempts per second of virtual time, can tell it from a correct machine.
        let immediate = try ConnectionModel(bounds: Self.world, variant: try #require(.named("retries-immediately")))
        var options = CheckOptions()
        options.checkEventually = false
        options.maxDepth = 8
        #expect(immediate.check(options).violation == nil)
    }
}
