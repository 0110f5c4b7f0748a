import LiveConnection
import LiveConnectionSimulator
import Testing

/// The `manager-words` header: a model checker's backoff draws handed to the shell.
@Suite("manager-words")
struct ManagerWordsTests {
    static func withWords(_ line: String) -> String {
        TraceRoundTripTests.sample().encode().replacingOccurrences(
            of: "manager-seed: 7\n", with: "manager-seed: 7\n\(line)\n")
    }

    @Test("scripted words come first, then the seeded source continues from its start")
    func scriptedWordsFirst() {
        var scripted = ScriptedWords([1, .max, 42], then: Xoshiro256StarStar(seed: 7))
        var plain = Xoshiro256StarStar(seed: 7)
        #expect((0..<3).map { _ in scripted.nextWord() } == [1, .max, 42])
        #expect((0..<5).map { _ in scripted.nextWord() } == (0..<5).map { _ in plain.nextWord() })
    }

    @Test("the header round-trips and reaches the scenario")
    func roundTrip() throws {
        let trace = try Trace(parsing: Self.withWords("manager-words: 1 18446744073709551615"))
        #expect(trace.scenario.managerWords == [1, .max])
        #expect(trace.scenario.managerWords == [1, .max])
        #expect(try Trace(parsing: trace.encode()) == trace)
        #expect(!TraceRoundTripTests.sample().encode().contains("manager-words"), "written only when there are some")
    }

    @Test(
        "a malformed word list is reported on its line",
        arguments: [
            ("manager-words: abc", "not a random word"), ("manager-words: -1", "not a random word"),
            ("manager-words: 18446744073709551616", "not a random word"),
        ])
    func malformed(line: String, reason: String) throws {
        do {
            _ = try Trace(parsing: Self.withWords(line))
            Issue.record("\(line) parsed")
        } catch {
            #expect(error.line == 16, "\(error)")
            #expect(error.description.contains(reason), "\(error)")
        }
    }

    @Test("the shell's first backoff draws are the scripted words: lowest then highest of full jitter")
    func drawsReachTheShell() throws {
        var configuration = ConnectionConfiguration()
        configuration.backoff = .fullJitter(base: .seconds(1), cap: .seconds(30))
        let schedule = [
            ScheduledAction(at: .zero, .failHandshakes(status: 503)),
            ScheduledAction(at: .zero, .connect(endpoint: 0)),
        ]
        func firstDelays(words: [UInt64]) -> [String] {
            let scenario = Scenario(
                seed: 0, configuration: configuration, strategy: .fifo, duration: .seconds(5),
                faults: FaultMix(rates: []), schedule: schedule, managerSeed: 3, managerWords: words)
            return SimulationRun(scenario).run().log.compactMap { line in
                line.range(of: "start-timer retry ").map { String(line[$0.upperBound...].prefix { $0 != ";" }) }
            }
        }
        // After 1 failure the range is [0, 1 s]; after 2, [0, 2 s].
        #expect(firstDelays(words: [1, .max]).prefix(2) == ["0ms", "2000ms"])
        #expect(firstDelays(words: [.max, 1]).prefix(2) == ["1000ms", "0ms"])
    }
}
