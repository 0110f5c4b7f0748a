import Foundation
import LiveConnectionSimulator
import Testing

@testable import LiveConnectionTraces

@Suite("Timeline pictures")
struct TimelinePictureTests {
    static func event(_ milliseconds: Int64, _ text: String) -> ObservedEvent {
        ObservedEvent(at: .milliseconds(milliseconds), text)
    }

    /// A test's timeline: two managers, actions of every kind, a log line and a violation.
    static let testTimeline = [
        event(0, "action subscribe room"),
        event(0, "m1 phase connecting attempt=1"),
        event(10, "m1 phase open"),
        event(500, "action broadcast topic=room text=hi"),
        event(500, "m1 deliver seq=1"),
        event(800, "m2 phase connecting attempt=1"),
        event(1000, "action reset"),
        event(1000, "m1 phase waiting 300ms reason=\"error ECONNRESET\""),
        event(1300, "m1 phase connecting attempt=2"),
        event(1310, "m1 phase open"),
        event(1310, "m1 gap expected=2 received=4"),
        event(1500, "log screen shows <1> & \"more\""),
        event(2000, "violation exactly-once-in-order: message 2 lost"),
    ]

    @Test("a test's timeline becomes one lane per manager with its phases, and marks for everything else")
    func testDialect() {
        let picture = TimelinePicture(timeline: Self.testTimeline, title: "seed 7")
        #expect(picture.lanes == ["m1", "m2"])
        #expect(
            picture.segments.map { "\($0.lane) \($0.phase.prefix { $0 != " " }) \($0.start)…\($0.end)" } == [
                "m1 connecting 0.0 seconds…0.01 seconds", "m1 open 0.01 seconds…1.0 seconds",
                "m1 waiting 1.0 seconds…1.3 seconds", "m1 connecting 1.3 seconds…1.31 seconds",
                "m1 open 1.31 seconds…2.0 seconds", "m2 connecting 0.8 seconds…2.0 seconds",
            ])
        #expect(
            picture.marks.map(\.kind) == [
                .intent, .broadcast, .delivery(lane: "m1"), .fault, .gap(lane: "m1"), .log, .violation,
            ])
        #expect(picture.end == .seconds(2))
    }

    @Test("the scenario harness's timeline draws its one manager from the phase effects")
    func harnessDialect() {
        let picture = TimelinePicture(
            timeline: [
                Self.event(0, "input connect ws://server-0.sim/live -> phase connecting attempt=1; open g1 ws://x"),
                Self.event(0, "action connect 0"),
                Self.event(5, "input flushed g1 -> cancel-timer connect-timeout(g1); phase open"),
                Self.event(9, "input received g1 seq=1 -> deliver"),
                Self.event(20, "end"),
            ], title: "replay")
        #expect(picture.lanes == ["manager"])
        #expect(picture.segments.map(\.phase) == ["connecting attempt=1", "open"])
        #expect(picture.marks.map(\.kind) == [.intent, .delivery(lane: "manager")])
        #expect(picture.end == .milliseconds(20))
    }

    @Test("the SVG has a rect per phase, a red line per violation, escaped text, and the same bytes every time")
    func svgText() {
        let svg = TimelinePicture(timeline: Self.testTimeline, title: "seed 7 <a&b>").svg()
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(svg.hasSuffix("</svg>\n"))
        #expect(svg.components(separatedBy: "<rect x=").count - 1 == 6 + 1, "six phases and one log tick")
        #expect(svg.contains("<title>1000ms–1300ms waiting 300ms reason=&quot;error ECONNRESET&quot;</title>"))
        #expect(svg.contains("stroke=\"#FF0000\""))
        #expect(svg.contains("seed 7 &lt;a&amp;b&gt;"))
        #expect(svg.contains("screen shows &lt;1&gt; &amp; &quot;more&quot;"))
        #expect(!svg.contains("<1>"))
        #expect(svg == TimelinePicture(timeline: Self.testTimeline, title: "seed 7 <a&b>").svg())
    }

    @Test("an empty timeline still draws a valid picture")
    func empty() {
        let svg = TimelinePicture(timeline: [], title: "nothing").svg()
        #expect(svg.hasPrefix("<svg") && svg.hasSuffix("</svg>\n"))
    }
}
