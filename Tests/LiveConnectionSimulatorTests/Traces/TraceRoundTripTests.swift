import LiveConnection
import LiveConnectionSimulator
import Testing

@Suite("Trace format round trip")
struct TraceRoundTripTests {
    static func sample() -> Trace {
        var configuration = ConnectionConfiguration()
        configuration.heartbeatInterval = .milliseconds(500)
        configuration.heartbeatTimeout = .milliseconds(500)
        configuration.backoff = .fullJitter(base: .milliseconds(100), cap: .seconds(2))
        let scenario = Scenario(
            seed: 42, configuration: configuration, strategy: .random(seed: 42), duration: .seconds(60),
            schedule: [
                ScheduledAction(at: .zero, .subscribe("loans")),
                ScheduledAction(at: .zero, .connect(endpoint: 0)),
                ScheduledAction(
                    at: .milliseconds(1500), .closeConnection(code: .tokenExpired, reason: "token expired")),
                ScheduledAction(at: .seconds(3), .resetConnection),
            ],
            managerSeed: 7, feedTopic: "loans")
        var trace = Trace(
            scenario: scenario, generator: GeneratorID(name: "swarm", version: 1), variant: "skips-resubscribe",
            expectation: .violation("resubscribe-before-open"),
            observed: [ObservedEvent(at: .milliseconds(2), "phase open")])
        // Written by hand, as in the docs: no build recorded (the line is optional).
        trace.observedBuild = nil
        return trace
    }

    @Test("a trace is written exactly as the documentation shows")
    func goldenText() {
        let expected = """
            livesim-trace 1
            seed: 42
            generator: swarm 1
            strategy: random seed=42
            heartbeat-interval: 500ms
            heartbeat-timeout: 500ms
            connect-timeout: 10000ms
            backoff: full-jitter base=100ms cap=2000ms
            terminal-close-codes: 1008 4003
            refresh-close-codes: 4001
            terminal-handshake-statuses: 403
            refresh-handshake-statuses: 401
            resume: true
            duration: 60000ms
            manager-seed: 7
            log-capacity: 1000
            feed-topic: loans
            variant: skips-resubscribe
            expect: violation resubscribe-before-open
            schedule:
            0ms subscribe loans
            0ms connect endpoint=0
            1500ms close code=4001 reason="token expired"
            3000ms reset
            observed:
            2ms phase open

            """
        #expect(Self.sample().encode() == expected)
    }

    @Test(
        "parsing what was encoded gives the same trace, and encoding it again the same bytes",
        arguments: 0..<300 as Range<UInt64>)
    func roundTrip(seed: UInt64) throws {
        var arbitrary = ArbitraryTraces(seed: seed)
        let trace = arbitrary.trace()
        let text = trace.encode()
        let parsed = try Trace(parsing: text)
        #expect(parsed == trace, "seed \(seed):\n\(text)")
        #expect(parsed.encode() == text)
    }

    @Test("every action reads back from its words", arguments: 0..<50 as Range<UInt64>)
    func actionWords(seed: UInt64) throws {
        var arbitrary = ArbitraryTraces(seed: seed)
        for _ in 0..<40 {
            let action = arbitrary.action()
            #expect(try SimulationAction(traceWords: action.traceWords) == action, "\(action.traceWords)")
        }
    }

    @Test("every verb the documentation lists is produced by some action")
    func verbsCoverActions() {
        var arbitrary = ArbitraryTraces(seed: 1)
        var seen: Set<String> = []
        for _ in 0..<2000 {
            seen.insert(String(arbitrary.action().traceWords.split(separator: " ")[0]))
        }
        #expect(seen == Set(SimulationAction.traceVerbs))
    }

    @Test(
        "durations are exact to the nanosecond",
        arguments: [
            (Duration.zero, "0ms"), (.milliseconds(1500), "1500ms"), (.microseconds(250), "0.25ms"),
            (.nanoseconds(1), "0.000001ms"), (.nanoseconds(3_000_000_007), "3000.000007ms"),
        ])
    func durations(duration: Duration, spelling: String) throws {
        #expect(duration.traceFormatted == spelling)
        #expect(try SimulationAction(traceWords: "latency \(spelling)") == .setLatency(duration))
    }

    @Test("comments, blank lines, x- keys and CRLF line endings are read the same")
    func leniency() throws {
        let text = Self.sample().encode()
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines.insert("# recorded by hand", at: 1)
        lines.insert("x-note: shrunk from 37 actions", at: 3)
        lines.insert("", at: 5)
        let annotated = lines.joined(separator: "\r\n")
        #expect(try Trace(parsing: annotated) == Self.sample())
    }

    @Test("actions given out of time order are kept sorted, equal times in their given order")
    func stableOrder() {
        var trace = Trace(
            scenario: Scenario(
                seed: 1, configuration: ConnectionConfiguration(), strategy: .fifo, duration: .seconds(1),
                schedule: [ScheduledAction(at: .seconds(2), .freeze)], managerSeed: 1),
            generator: .handWritten)
        trace.scenario.schedule += [
            ScheduledAction(at: .seconds(1), .subscribe("a")),
            ScheduledAction(at: .seconds(1), .subscribe("b")),
        ]
        #expect(
            trace.scenario.schedule.map(\.traceLine) == ["1000ms subscribe a", "1000ms subscribe b", "2000ms freeze"])
    }

    @Test("observed text is kept on one line without trailing spaces, so it always reads back the same")
    func observedText() throws {
        #expect(ObservedEvent(at: .zero, "a\nb\r\tc  ").text == "a b  c")
        var trace = Self.sample()
        trace.observed = [ObservedEvent(at: .milliseconds(3), "input x -> ")]
        #expect(trace.encode().hasSuffix("observed:\n3ms input x ->\n"))
        #expect(try Trace(parsing: trace.encode()) == trace)
    }
}
