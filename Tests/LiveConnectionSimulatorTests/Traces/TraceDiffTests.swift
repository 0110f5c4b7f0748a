import LiveConnection
import LiveConnectionSimulator
import Testing

@Suite("Trace diff")
struct TraceDiffTests {
    @Test("identical traces have no divergence")
    func identical() {
        let text = TraceRoundTripTests.sample().encode()
        #expect(TraceDivergence(between: text, and: text) == nil)
    }

    @Test("a changed action is found at its line, in the schedule, with its virtual time and context")
    func changedAction() throws {
        var other = TraceRoundTripTests.sample()
        other.scenario.schedule[3].action = .freeze
        let divergence = try #require(
            TraceDivergence(between: TraceRoundTripTests.sample().encode(), and: other.encode()))
        #expect(divergence.line == 24)
        #expect(divergence.section == "schedule")
        #expect(divergence.left == "3000ms reset" && divergence.right == "3000ms freeze")
        #expect(divergence.virtualTime == .seconds(3))
        #expect(divergence.before.map(\.number) == [21, 22, 23])
        let rendered = divergence.render(leftName: "a.trace", rightName: "b.trace")
        #expect(
            rendered == """
                traces diverge at line 24 (schedule, virtual time 3000ms):
                    21  0ms subscribe loans
                    22  0ms connect endpoint=0
                    23  1500ms close code=4001 reason="token expired"
                  - 24  3000ms reset
                  + 24  3000ms freeze
                (- a.trace, + b.trace)
                """)
    }

    @Test("a header difference is reported in the header, without a time")
    func header() throws {
        var other = TraceRoundTripTests.sample()
        other.scenario.configuration.resume = false
        let divergence = try #require(
            TraceDivergence(between: TraceRoundTripTests.sample().encode(), and: other.encode()))
        #expect(divergence.line == 13 && divergence.section == "header" && divergence.virtualTime == nil)
        #expect(divergence.right == "resume: false")
    }

    @Test("when one run stops early, the other's next line is the divergence")
    func shorter() throws {
        var longer = TraceRoundTripTests.sample()
        longer.observed.append(ObservedEvent(at: .milliseconds(2500), "phase waiting"))
        longer.observedBuild = nil  // as the sample: the header stays the same, only the observed run differs
        let divergence = try #require(
            TraceDivergence(between: TraceRoundTripTests.sample().encode(), and: longer.encode()))
        #expect(
            divergence.section == "observed" && divergence.left == nil && divergence.right == "2500ms phase waiting")
        #expect(divergence.render(leftName: "a", rightName: "b").contains("- 27  (end of a)"))
    }
}
