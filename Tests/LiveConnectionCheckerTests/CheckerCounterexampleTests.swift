import Foundation
import LiveConnection
import LiveConnectionSimulator
import TestScheduling
import Testing

@testable import LiveConnectionChecker

/// A checker counterexample becomes a simulator trace that runs against the real shell:
/// the shell must live the counterexample's steps and the simulator must see the bug.
@Suite("Counterexamples as simulator traces", .computeBound)
struct CheckerCounterexampleTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var variant: String
        /// What the simulator's own invariants say when the shell lives the counterexample.
        var simulator: LiveConnectionSimulator.Expectation
        /// Whether the shell receives every input of the counterexample, in order.
        var followed = true
        var testDescription: String { "\(variant) → \(simulator)" }
    }

    static let cases: [Case] = [
        // The three planted bugs. The late open is g1's own handshake completing
        // after the manager gave it up (`stale open`, armed before g1 is requested).
        Case(variant: "ignores-generations", simulator: .violation("stale-inputs-change-nothing")),
        Case(variant: "skips-resubscribe", simulator: .violation("resubscribe-before-open")),
        Case(variant: "never-resets-backoff", simulator: .violation("backoff-within-policy")),
        // The three machine variants.
        Case(variant: "reports-open-early", simulator: .violation("reported-state-is-true")),
        Case(variant: "double-reconnect", simulator: .violation("stale-inputs-change-nothing")),
        Case(variant: "retries-terminal-close", simulator: .violation("quiet-after-stop")),
        // The rest.
        Case(variant: "leaks-sockets", simulator: .violation("single-live-transport")),
        Case(variant: "no-pong-deadline", simulator: .violation("dead-peer-detected")),
        Case(variant: "duplicates-commands", simulator: .violation("commands-at-most-once")),
        Case(variant: "gives-up", simulator: .violation("eventually-open")),
        // The rules judged from the public surface.
        Case(variant: "keeps-first-endpoint", simulator: .violation("endpoint-of-last-connect")),
        Case(variant: "ignores-background", simulator: .violation("quiet-in-background")),
        Case(variant: "pong-deadline-of-p", simulator: .violation("timers-armed-as-configured")),
        Case(variant: "retries-expired-credentials", simulator: .violation("expired-credentials-refreshed")),
        // The network path.
        Case(variant: "ignores-path", simulator: .violation("quiet-without-path")),
        Case(variant: "misses-path-return", simulator: .violation("reconnects-when-path-returns")),
        Case(variant: "misnumbers-open-attempt", simulator: .violation("backoff-within-policy")),
        Case(variant: "forgets-pings", simulator: .violation("pings-answered-once")),
        // The machine skips the resume frame, but with no message broadcast during the
        // outage nothing is lost: the simulator's delivery invariant has nothing to see.
        Case(variant: "forgets-resume", simulator: .pass),
    ]

    @Test("the shell lives the counterexample and the simulator sees the bug", arguments: cases)
    func reproduces(_ testCase: Case) throws {
        let (written, replay) = try SettledCounterexamples.settled(testCase.variant)
        #expect(replay.expectation == testCase.simulator, "\(replay.summary)")
        #expect(replay.followed == testCase.followed, "\(replay.summary)")
        #expect(written.trace.expectation == testCase.simulator)
        #expect(written.gaps.isEmpty, "\(written.gaps)")
        #expect(written.trace.variant == testCase.variant)
        #expect(written.trace.generator == ConnectionModel.traceGenerator)
    }

    @Test("the written file parses and replays to its expect line, from the text alone", arguments: cases)
    func fileReplays(_ testCase: Case) throws {
        let written = try SettledCounterexamples.settled(testCase.variant).written
        let parsed = try Trace(parsing: written.trace.encode())
        #expect(parsed == written.trace)
        let expectation = try #require(parsed.expectation)
        let result = SimulationRun(parsed.scenario, variant: try parsed.logicVariant()).run()
        #expect(result.satisfies(expectation))
    }

    @Test("realizing and settling a counterexample is deterministic, byte for byte")
    func deterministic() throws {
        var first = try SettledCounterexamples.written("double-reconnect")
        var second = try SettledCounterexamples.written("double-reconnect")
        _ = try first.settle()
        _ = try second.settle()
        #expect(first.trace.encode() == second.trace.encode())
        // The late error is g1's own: armed on g1 before its pong deadline closes it, read by
        // g1's receive loop while the close lingers, so FIFO order already lives it.
        #expect(first.trace.scenario.strategy == .fifo)
        #expect(first.trace.scenario.schedule.map(\.traceLine).contains("25002ms stale error"))
    }

    @Test("the manager draws the counterexample's delays: its boundary words lead the random source")
    func drawsAreTheCounterexamples() throws {
        // connect, handshake 503 [lowest], retry, opened, flushed, close 1000 [highest].
        let written = try SettledCounterexamples.settled("never-resets-backoff").written
        #expect(
            written.trace.scenario.managerWords == [BoundaryRandom.Draw.lowest.word, BoundaryRandom.Draw.highest.word])
        let lines = written.trace.encode().split(separator: "\n")
        #expect(lines.contains("manager-words: 1 18446744073709551615"))
        #expect(lines.contains("1ms fail-handshakes status=503"))
    }

    @Test("a step the model takes before the handshake answers is placed between request and answer")
    func intentBeforeHandshake() throws {
        // connect, subscribe (while connecting), opened, flushed.
        let written = try SettledCounterexamples.settled("skips-resubscribe").written
        let schedule = written.trace.scenario.schedule.map(\.traceLine)
        let subscribe = try #require(schedule.firstIndex(of: "0ms subscribe alpha"))
        let release = try #require(schedule.firstIndex(of: "2ms hang-handshakes off"))
        #expect(subscribe < release)
        #expect(schedule.first == "0ms latency 1ms")
    }

    /// The trace without what depends on the build's executor: its strategy and observed run.
    static func buildNeutral(_ trace: Trace) -> String {
        var neutral = trace
        neutral.scenario.strategy = .fifo
        neutral.observed = []
        return neutral.encode()
    }

    @Test("the files in Traces/ are what the checker writes today")
    func committedTracesAreCurrent() throws {
        let library = try #require(TraceLibrary.package())
        let committed = try library.files().filter { $0.lastPathComponent.hasPrefix("checker-") }
        #expect(committed.count == Self.cases.count - 1, "every case but the passing one is committed")
        for file in committed {
            let text = try String(contentsOf: file, encoding: .utf8)
            let trace = try Trace(parsing: text)
            // A variant whose standard-world search this run leaves out (``TestScale/standardWorldDepth``)
            // is compared in CI's release step.
            guard SettledCounterexamples.traceWorld(try #require(trace.variant)) == .standard else { continue }
            let written = try SettledCounterexamples.settled(try #require(trace.variant)).written
            #expect(written.fileName == file.lastPathComponent)
            if trace.observedBuild == .current {
                #expect(
                    written.trace.encode() == text, "\(file.lastPathComponent) is stale: run livesim check --variant")
            } else {
                // The other build settles its own executor schedule (see Trace.replay); what the
                // checker decides — the schedule of faults, the draws, the verdict — is the same.
                #expect(
                    Self.buildNeutral(written.trace) == Self.buildNeutral(trace),
                    "\(file.lastPathComponent) is stale: run livesim check --variant")
            }
        }
    }
}

/// The realizer on hand-made steps: what it cannot do it says, step by step.
@Suite("Trace realizer gaps", .computeBound)
struct TraceRealizerGapTests {
    static let endpoint = Endpoint(url: URL(string: "wss://a.example/live")!)
    static let g1 = Generation(1)

    func realize(_ steps: [(ConnectionAction, [Effect])]) -> TraceRealizer {
        var realizer = TraceRealizer(
            steps: steps.enumerated().map { index, step in
                ConnectionReplay.Step(number: index + 1, action: step.0, draw: nil, words: [], effects: step.1)
            }, endpoints: [Self.endpoint], feedTopic: "alpha", aftermath: .seconds(1))
        realizer.realize()
        return realizer
    }

    @Test("a timer the model fires before an earlier one is due is a gap")
    func timerOrder() {
        let realizer = realize([
            (
                .input(.connect(Self.endpoint)),
                [
                    .openConnection(Self.g1, Self.endpoint), .startTimer(.connectTimeout(Self.g1), .seconds(10)),
                    .startTimer(.heartbeat(Self.g1), .seconds(25)),
                ]
            ),
            (.input(.timerFired(.heartbeat(Self.g1))), []),
        ])
        #expect(
            realizer.gaps == ["step 2: timer heartbeat(g1) fires at 25000ms, but connect-timeout(g1) is due at 10000ms"]
        )
        #expect(realizer.now == .seconds(25))
    }

    @Test("what the simulated world cannot produce is named")
    func unrealizable() {
        let realizer = realize([
            (.input(.connect(Self.endpoint)), [.openConnection(Self.g1, Self.endpoint)]),
            (.input(.credentialsRefreshed(succeeded: false)), []),
            (.late(.flushed(Self.g1)), []),
            (.input(.timerFired(.retry)), []),
        ])
        #expect(realizer.gaps.count == 3)
        #expect(realizer.gaps[0].hasPrefix("step 2: a failed credentials refresh"))
        #expect(realizer.gaps[1].hasPrefix("step 3: a late flushed g1"))
        #expect(realizer.gaps[2] == "step 4: timer retry fires but is not armed")
    }

    @Test("a ping whose pong the model never delivers is held back until the connection goes")
    func withheldPong() {
        let realizer = realize([
            (.input(.connect(Self.endpoint)), [.startTimer(.heartbeat(Self.g1), .seconds(25))]),
            (.input(.timerFired(.heartbeat(Self.g1))), [.ping(Self.g1)]),
            (.input(.disconnect()), [.closeConnection(Self.g1, code: .normal, reason: "disconnected")]),
        ])
        #expect(realizer.gaps.isEmpty)
        let freeze = realizer.schedule.first { $0.action == .freeze }
        let thaw = realizer.schedule.first { $0.action == .thaw }
        // After the ping left, before its pong is back; lifted only once the freeze is in place.
        #expect(freeze?.at == .seconds(25) + TraceRealizer.latency)
        #expect(thaw.map { $0.at > .seconds(25) + TraceRealizer.latency } == true)
    }
}
