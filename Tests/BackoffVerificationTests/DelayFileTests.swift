import BackoffVerification
import LiveConnection
import Testing

@Suite("Reading delays recorded elsewhere")
struct DelayFileTests {
    @Test(
        "durations parse exactly to nanoseconds",
        arguments: [
            ("1.5s", 1_500_000_000), ("250ms", 250_000_000), ("0.25", 250_000_000), ("3", 3_000_000_000),
            ("120us", 120_000), ("120µs", 120_000), ("40ns", 40), ("2m", 120_000_000_000), (".5s", 500_000_000),
            ("1.0000000005", 1_000_000_001), ("0.1ms", 100_000),
        ] as [(String, Int64)])
    func durations(text: String, nanoseconds: Int64) {
        #expect(DelayFile.parseDuration(text) == .nanoseconds(nanoseconds))
    }

    @Test("nonsense is not a duration", arguments: ["", ".", "s", "abc", "1.2.3s", "1e3", "1,5s", "5h", "٣s"])
    func notDurations(text: String) {
        #expect(DelayFile.parseDuration(text) == nil)
    }

    @Test("bare delays are one run of consecutive attempts, each remembering the previous")
    func bare() throws {
        let observations = try DelayFile.parse("# recorded\n0.8s\n\n1500ms\n2.9\n")
        #expect(observations.map(\.attempt) == [1, 2, 3])
        #expect(observations.map(\.run) == [0, 0, 0])
        #expect(observations.map(\.previous) == [nil, .milliseconds(800), .milliseconds(1500)])
    }

    @Test("with --attempt, bare delays are independent draws after that many failures")
    func fixedAttempt() throws {
        let observations = try DelayFile.parse("1s\n2s\n", attempt: 4)
        #expect(observations.map(\.attempt) == [4, 4] && observations.map(\.run) == [0, 1])
        #expect(observations.allSatisfy { $0.previous == nil })
        #expect(throws: DelayFileError.self) { try DelayFile.parse("1,1s\n", attempt: 2) }
    }

    @Test("attempt,delay pairs start a new run whenever the attempt does not follow on")
    func pairs() throws {
        let observations = try DelayFile.parse("1,0.5s\n2, 1.2s\n3\t2s\n1;700ms\n2,1s\n5,9s\n")
        #expect(observations.map(\.run) == [0, 0, 0, 1, 1, 2])
        #expect(
            observations.map(\.previous) == [
                nil, .milliseconds(500), .milliseconds(1200), nil, .milliseconds(700), nil,
            ])
    }

    @Test(
        "malformed lines are reported with their number",
        arguments: [
            ("1s\n2s\nfast\n", 3), ("1,1s\n2\n", 2), ("1,2,3\n", 1), ("0,1s\n", 1), ("x,1s\n", 1), ("1s\n-2s\n", 2),
        ] as [(String, Int)])
    func malformed(text: String, line: Int) {
        #expect {
            try DelayFile.parse(text)
        } throws: { error in
            guard case .malformedLine(let number, _, _) = error as? DelayFileError else { return false }
            return number == line
        }
    }

    @Test("an empty file is an error, and decorrelated jitter without history is refused")
    func emptyAndUnsupported() throws {
        #expect(throws: DelayFileError.empty) { try DelayFile.parse("# nothing\n\n") }
        let orphan = try DelayFile.parse("1s\n", attempt: 3)
        #expect(throws: DelayFileError.self) { try BackoffFit.fit(orphan, to: .decorrelatedJitter()) }
    }
}
