import Foundation
import LiveConnection
import LiveConnectionSimulator
import Testing

@testable import LiveConnectionTraces

@Suite("Malformed traces")
struct TraceMalformedInputTests {
    /// The sample trace's text with line `number` (1-based) replaced.
    static func replacing(line number: Int, with text: String) -> String {
        var lines = sampleText.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines[number - 1] = text
        return lines.joined(separator: "\n")
    }

    static let sampleText = TraceRoundTripTests.sample().encode()

    static func error(parsing text: String) -> TraceError? {
        do {
            _ = try Trace(parsing: text)
            return nil
        } catch {
            return error
        }
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var line: Int
        var text: String
        var reasonContains: String
        var testDescription: String { "line \(line): \(text)" }
    }

    // Line numbers in the sample: 1 version, 2 seed, 3 generator, 4 strategy, 5–13
    // configuration, 14 duration, 15 manager-seed, 16 log-capacity, 17 feed-topic, 18 variant,
    // 19 expect, 20 schedule:, 21–24 actions, 25 observed:, 26 an observed event.
    static let malformedLines: [Case] = [
        Case(line: 2, text: "seed: -1", reasonContains: "not a seed"),
        Case(line: 2, text: "seed: 18446744073709551616", reasonContains: "not a seed"),
        Case(line: 16, text: "log-capacity: -1", reasonContains: "cannot be negative"),
        Case(line: 17, text: "feed-topic: a b", reasonContains: "does not take 'b'"),
        Case(line: 2, text: "seed 42", reasonContains: "key: value"),
        Case(line: 2, text: "seed:42", reasonContains: "space after"),
        Case(line: 2, text: "sede: 42", reasonContains: "unknown header key 'sede'"),
        Case(line: 3, text: "seed: 7", reasonContains: "appears twice"),
        Case(line: 3, text: "generator: swarm", reasonContains: "needs a version"),
        Case(line: 3, text: "generator: swarm one", reasonContains: "not a generator version"),
        Case(line: 4, text: "strategy: lifo", reasonContains: "unknown strategy"),
        Case(line: 4, text: "strategy: pct seed=1 depth=0 steps=5", reasonContains: "depth ≥ 1"),
        Case(line: 4, text: "strategy: random", reasonContains: "needs seed="),
        Case(line: 4, text: "strategy: random seed=1 extra", reasonContains: "does not take 'extra'"),
        Case(line: 5, text: "heartbeat-interval: 500", reasonContains: "not a duration"),
        Case(line: 5, text: "heartbeat-interval: 0ms", reasonContains: "positive"),
        Case(line: 5, text: "heartbeat-interval: 1.1234567ms", reasonContains: "six decimals"),
        Case(line: 5, text: "heartbeat-interval: 99999999999999999999ms", reasonContains: "not a duration"),
        Case(line: 5, text: "heartbeat-interval: 9999999999999ms", reasonContains: "too long"),
        Case(line: 8, text: "backoff: full-jitter base=100ms", reasonContains: "needs cap="),
        Case(line: 8, text: "backoff: fibonacci", reasonContains: "unknown backoff policy"),
        Case(line: 8, text: "backoff: table", reasonContains: "at least one delay"),
        Case(
            line: 8, text: "backoff: proportional-jitter initial=1ms multiplier=0.5 jitter=0.2 maximum=9ms",
            reasonContains: "multiplier ≥ 1"),
        Case(
            line: 8, text: "backoff: proportional-jitter initial=1ms multiplier=nan jitter=0.2 maximum=9ms",
            reasonContains: "not a multiplier"),
        Case(line: 9, text: "terminal-close-codes: 1008 70000", reasonContains: "not a close code"),
        Case(line: 13, text: "resume: maybe", reasonContains: "true or false"),
        Case(line: 14, text: "duration: ", reasonContains: "has no value"),
        Case(line: 19, text: "expect: failure", reasonContains: "'pass' or 'violation NAME'"),
        Case(line: 19, text: "expect: violation", reasonContains: "needs an invariant name"),
        Case(line: 21, text: "0ms subscrbe loans", reasonContains: "unknown action 'subscrbe'"),
        Case(line: 21, text: "subscribe loans", reasonContains: "not a duration"),
        Case(line: 21, text: "0ms", reasonContains: "expected an action"),
        Case(line: 21, text: "-5ms subscribe loans", reasonContains: "before the start"),
        Case(line: 21, text: "0ms subscribe", reasonContains: "needs a topic"),
        Case(line: 21, text: "0ms subscribe loans availability", reasonContains: "does not take 'availability'"),
        Case(line: 21, text: "0ms subscribe \"loans", reasonContains: "not closed"),
        Case(line: 21, text: "0ms subscribe \"lo\\qans\"", reasonContains: "unknown escape"),
        Case(line: 21, text: "0ms subscribe \"\\u{110000}\"", reasonContains: "not a Unicode scalar"),
        Case(line: 21, text: "0ms subscribe \"\\u{D800}\"", reasonContains: "not a Unicode scalar"),
        Case(line: 21, text: "0ms subscribe \"\\u41\"", reasonContains: "followed by '{'"),
        Case(line: 21, text: "0ms subscribe \"a\"b", reasonContains: "expected a space"),
        Case(line: 21, text: "0ms subscribe =x", reasonContains: "without a name"),
        Case(line: 21, text: "0ms subscribe \"ab\\", reasonContains: "backslash ends the line"),
        Case(line: 21, text: "0ms subscribe \"\\u{41\"", reasonContains: "not closed"),
        Case(line: 21, text: "0ms subscribe \"\\u{000000041}\"", reasonContains: "too long"),
        Case(line: 21, text: "0ms latency -5ms", reasonContains: "cannot be negative"),
        Case(line: 21, text: "0ms broadcast topic=loans", reasonContains: "needs text="),
        Case(line: 8, text: "backoff: table 0ms -1ms", reasonContains: "cannot be negative"),
        Case(line: 8, text: "backoff: exponential base=-1ms cap=5ms", reasonContains: "cannot be negative"),
        Case(line: 22, text: "0ms connect endpoint=", reasonContains: "has no value"),
        Case(line: 22, text: "0ms connect endpoint=-1", reasonContains: "cannot be negative"),
        Case(line: 22, text: "0ms connect 0", reasonContains: "expects endpoint="),
        Case(line: 23, text: "1500ms close code=99999 reason=x", reasonContains: "not a close code"),
        Case(line: 23, text: "1500ms close reason=x code=4001", reasonContains: "expects code="),
        Case(line: 23, text: "1500ms fail-handshakes status=42", reasonContains: "not an HTTP status"),
        Case(line: 23, text: "1500ms fail-handshakes on", reasonContains: "status=N or off"),
        Case(line: 23, text: "1500ms stale ping", reasonContains: "not a stale callback"),
        Case(line: 23, text: "1500ms idle-timeout 0ms", reasonContains: "positive"),
        Case(line: 23, text: "1500ms refuse-connections yes", reasonContains: "on or off"),
        Case(line: 24, text: "1000ms reset", reasonContains: "time goes backwards"),
        Case(line: 26, text: "soon phase open", reasonContains: "observed lines start with a time"),
    ]

    @Test("a malformed line is reported with its number and what is wrong", arguments: malformedLines)
    func malformedLine(testCase: Case) throws {
        let error = try #require(Self.error(parsing: Self.replacing(line: testCase.line, with: testCase.text)))
        #expect(error.line == testCase.line, "\(error)")
        guard case .malformedLine(_, let text, let reason) = error else {
            Issue.record("expected malformedLine, got \(error)")
            return
        }
        #expect(text == testCase.text)
        #expect(reason.contains(testCase.reasonContains), "\(error)")
        #expect(error.description.hasPrefix("line \(testCase.line): "))
    }

    @Test("a missing header key is named, at the line where the header ended", arguments: Trace.requiredHeaderKeys)
    func missingHeader(key: String) throws {
        let lines = Self.sampleText.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("\(key): ") }
        let error = try #require(Self.error(parsing: lines.joined(separator: "\n")))
        #expect(error == .missingHeader(key: key, line: 19))
    }

    @Test("an observed-build other than debug or release is refused, naming both")
    func unknownBuild() throws {
        let text = Self.sampleText.replacingOccurrences(of: "schedule:\n", with: "observed-build: fast\nschedule:\n")
        let error = try #require(Self.error(parsing: text))
        #expect(error.description.contains("'observed-build' is 'debug' or 'release', not 'fast'"), "\(error)")
    }

    @Test("the observed-build line is read back, whatever build reads it")
    func readsBuild() throws {
        for mode in BuildMode.allCases {
            let text = Self.sampleText.replacingOccurrences(
                of: "schedule:\n", with: "observed-build: \(mode)\nschedule:\n")
            #expect(try Trace(parsing: text).observedBuild == mode)
        }
    }

    @Test("a file without 'schedule:' is missing it at the end of the file")
    func missingSchedule() {
        let header = TraceRoundTripTests.sample().encode().split(separator: "\n").prefix(19).joined(separator: "\n")
        #expect(Self.error(parsing: header) == .missingHeader(key: "schedule", line: 20))
    }

    @Test(
        "the version line is checked first",
        arguments: [
            (
                "",
                TraceError.malformedLine(
                    number: 1, text: "", reason: "empty file: a trace starts with 'livesim-trace 1'")
            ),
            ("livesim-trace 2\nseed: 1", .unsupportedVersion(found: "2", line: 1)),
            ("livesim-trace one", .unsupportedVersion(found: "one", line: 1)),
        ])
    func versionLine(text: String, expected: TraceError) {
        #expect(Self.error(parsing: text) == expected)
    }

    @Test(
        "something that is not a trace says so on line 1",
        arguments: ["hello", "livesim-trace", "livesim-trace  1", "LIVESIM-TRACE 1"])
    func notATrace(text: String) throws {
        let error = try #require(Self.error(parsing: text))
        #expect(error.line == 1)
        if case .malformedLine(_, _, let reason) = error {
            #expect(reason.contains("not a livesim trace"))
        } else {
            Issue.record("expected malformedLine, got \(error)")
        }
    }

    /// Seeded mutations of a valid trace: each either parses or fails with a line number
    /// inside the text (or one past its end), and never traps. The round-trip holds for
    /// whatever still parses.
    @Test("random mutations of a valid trace never crash the parser", arguments: 0..<40 as Range<UInt64>)
    func fuzz(seed: UInt64) throws {
        var arbitrary = ArbitraryTraces(seed: seed)
        let original = Array(arbitrary.trace().encode().unicodeScalars)
        let alphabet: [Unicode.Scalar] = [
            "\"", "\\", "=", " ", "\n", "\r", ":", "#", "m", "s", "0", "9", "-", ".", "{", "}", "u", "é", "\u{0}",
            "\u{301}",
        ]
        var parsed = 0
        for _ in 0..<50 {
            var scalars = original
            for _ in 0..<arbitrary.int(1...4) {
                let position = arbitrary.int(0...max(0, scalars.count - 1))
                switch arbitrary.int(0...3) {
                case 0 where !scalars.isEmpty: scalars.remove(at: position)
                case 1: scalars.insert(arbitrary.pick(alphabet), at: min(position, scalars.count))
                case 2 where !scalars.isEmpty: scalars[position] = arbitrary.pick(alphabet)
                default:
                    // Duplicate or drop a whole stretch, as a bad merge would.
                    let end = min(scalars.count, position + arbitrary.int(0...40))
                    if arbitrary.random.chance(0.5) {
                        scalars.insert(contentsOf: scalars[position..<end], at: position)
                    } else {
                        scalars.removeSubrange(position..<end)
                    }
                }
            }
            var text = ""
            text.unicodeScalars.append(contentsOf: scalars)
            let lineCount = Trace.splitLines(text).count
            do {
                let trace = try Trace(parsing: text)
                parsed += 1
                #expect(
                    try Trace(parsing: trace.encode()) == trace,
                    "\(text.debugDescription)\n\(trace.encode().debugDescription)")
            } catch {
                #expect((1...lineCount + 1).contains(error.line), "\(error) in a text of \(lineCount) lines")
            }
        }
        // Some mutations land in the observed section or a comment and still parse; most do not.
        #expect(parsed < 50)
    }
}
