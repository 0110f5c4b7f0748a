import Foundation
import Statistics

/// A run's timeline drawn as an SVG picture: one lane per manager with its phases over
/// virtual time, the actions above them (faults in red, app intents in blue, broadcasts in
/// grey), deliveries as dots, gaps as diamonds, the test's log lines as ticks, and
/// violations as red lines across every lane.
///
/// ```swift
/// let picture = TimelinePicture(timeline: trace.observed, title: "seed 7")
/// try picture.svg().write(toFile: "seed7.svg", atomically: true, encoding: .utf8)
/// ```
///
/// It reads both dialects of a trace's observed section (docs/trace-format.md): a test's
/// (`m1 phase open`, `m1 deliver seq=3`, `action reset`, `log …`) and the scenario
/// harness's (`input … -> …; phase open`, `action reset`, `violation …`), whose one
/// manager is drawn as `manager`. Every mark carries a `<title>` with its time and text,
/// which a browser shows on hover. The same timeline gives the same bytes.
public struct TimelinePicture: Sendable {
    /// A phase held by one manager from `start` until the next phase (or the end).
    struct Segment: Equatable {
        var lane: String
        var phase: String
        var start: Duration
        var end: Duration
    }

    /// Something that happened at one instant.
    struct Mark: Equatable {
        enum Kind: Equatable {
            case fault, intent, broadcast, log, violation
            case delivery(lane: String), gap(lane: String)
        }

        var kind: Kind
        var at: Duration
        var text: String
    }

    let title: String
    /// Lanes in the order their managers first appear.
    let lanes: [String]
    let segments: [Segment]
    let marks: [Mark]
    let end: Duration

    /// Reads a timeline (a trace's observed events, or a run's).
    public init(timeline: [ObservedEvent], title: String) {
        self.title = title
        var lanes: [String] = []
        var open: [String: (phase: String, start: Duration)] = [:]
        var segments: [Segment] = []
        var marks: [Mark] = []
        let end = timeline.map(\.at).max() ?? .zero

        func phase(_ lane: String, _ text: String, at: Duration) {
            if !lanes.contains(lane) { lanes.append(lane) }
            if let current = open[lane] {
                segments.append(Segment(lane: lane, phase: current.phase, start: current.start, end: at))
            }
            open[lane] = (text, at)
        }

        func managerLine(_ lane: String, _ text: String, at: Duration) {
            if text.hasPrefix("phase ") {
                phase(lane, String(text.dropFirst("phase ".count)), at: at)
            } else if text.hasPrefix("deliver") {
                marks.append(Mark(kind: .delivery(lane: lane), at: at, text: "\(lane) \(text)"))
            } else if text.hasPrefix("gap ") {
                marks.append(Mark(kind: .gap(lane: lane), at: at, text: "\(lane) \(text)"))
            }
        }

        for event in timeline {
            let text = event.text
            if let words = text.afterPrefix("action ") {
                marks.append(Mark(kind: Self.kind(ofAction: words), at: event.at, text: words))
            } else if let line = text.afterPrefix("log ") {
                marks.append(Mark(kind: .log, at: event.at, text: line))
            } else if let violation = text.afterPrefix("violation ") {
                marks.append(Mark(kind: .violation, at: event.at, text: violation))
            } else if let step = text.afterPrefix("input "), let arrow = step.range(of: " -> ") {
                for effect in step[arrow.upperBound...].components(separatedBy: "; ") {
                    managerLine("manager", effect, at: event.at)
                }
            } else if let space = text.firstIndex(of: " "), Self.isManagerName(text[..<space]) {
                managerLine(String(text[..<space]), String(text[text.index(after: space)...]), at: event.at)
            }
        }
        for lane in lanes {
            if let current = open[lane] {
                segments.append(Segment(lane: lane, phase: current.phase, start: current.start, end: end))
            }
        }
        self.lanes = lanes
        self.segments = segments
        self.marks = marks
        self.end = end
    }

    /// `m1`, `m2`, …: the names a test's managers go by in its timeline.
    static func isManagerName(_ word: Substring) -> Bool {
        word.count >= 2 && word.first == "m" && word.dropFirst().allSatisfy(\.isASCII) && Int(word.dropFirst()) != nil
    }

    /// App intents are the app's doing; broadcasts are traffic; everything else is a fault.
    static func kind(ofAction words: String) -> Mark.Kind {
        let verb = words.prefix { $0 != " " }
        switch verb {
        case "broadcast": return .broadcast
        case "subscribe", "unsubscribe", "connect", "disconnect", "send", "ping", "background", "foreground":
            return .intent
        default: return .fault
        }
    }

    // MARK: - Drawing

    static let width = 960.0
    static let left = 90.0
    static let right = 20.0
    static let top = 36.0
    static let actionsHeight = 34.0
    static let laneHeight = 26.0
    static let laneGap = 8.0

    /// Phase colours by the phase's first word.
    static func colour(ofPhase phase: String) -> String {
        switch phase.prefix(while: { $0 != " " }) {
        case "open": "#009E73"
        case "connecting": "#E69F00"
        case "waiting": "#D55E00"
        case "backgrounded": "#56B4E9"
        case "stopped": "#555555"
        default: "#BBBBBB"  // idle
        }
    }

    /// The picture as SVG text.
    public func svg() -> String {
        let plotWidth = Self.width - Self.left - Self.right
        let lanesTop = Self.top + Self.actionsHeight
        let lanesBottom = lanesTop + Double(lanes.count) * (Self.laneHeight + Self.laneGap)
        let height = lanesBottom + 44
        let span = max(end.drawnSeconds, 0.001)
        func x(_ at: Duration) -> Double { Self.left + at.drawnSeconds / span * plotWidth }
        func laneTop(_ lane: String) -> Double {
            lanesTop + Double(lanes.firstIndex(of: lane) ?? 0) * (Self.laneHeight + Self.laneGap)
        }

        var out = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(f(Self.width))" height="\(f(height))" \
            viewBox="0 0 \(f(Self.width)) \(f(height))" font-family="sans-serif" font-size="11">
            <rect width="100%" height="100%" fill="white"/>
            <text x="\(f(Self.left))" y="20" font-size="14">\(escape(title))</text>
            <text x="8" y="\(f(Self.top + 20))">actions</text>

            """
        for lane in lanes {
            out += "<text x=\"8\" y=\"\(f(laneTop(lane) + 17))\">\(escape(lane))</text>\n"
        }
        for segment in segments {
            let width = max(x(segment.end) - x(segment.start), 0.5)
            out += "<rect x=\"\(f(x(segment.start)))\" y=\"\(f(laneTop(segment.lane)))\" width=\"\(f(width))\" "
            out += "height=\"\(f(Self.laneHeight))\" fill=\"\(Self.colour(ofPhase: segment.phase))\">"
            out +=
                "<title>\(segment.start.traceFormatted)–\(segment.end.traceFormatted) \(escape(segment.phase))</title></rect>\n"
        }
        for mark in marks {
            let at = x(mark.at)
            let tip = "<title>\(mark.at.traceFormatted) \(escape(mark.text))</title>"
            switch mark.kind {
            case .fault, .intent, .broadcast:
                let colour = mark.kind == .fault ? "#C00000" : mark.kind == .intent ? "#0072B2" : "#999999"
                let y = Self.top + (mark.kind == .broadcast ? 22 : 6)
                out += "<line x1=\"\(f(at))\" y1=\"\(f(y))\" x2=\"\(f(at))\" y2=\"\(f(lanesBottom))\" "
                out += "stroke=\"\(colour)\" stroke-opacity=\"0.35\"/>\n"
                out += "<path d=\"M\(f(at - 4)),\(f(y)) L\(f(at + 4)),\(f(y)) L\(f(at)),\(f(y + 8)) Z\" "
                out += "fill=\"\(colour)\">\(tip)</path>\n"
            case .log:
                let y = Self.top + 26
                out +=
                    "<rect x=\"\(f(at - 1))\" y=\"\(f(y))\" width=\"2\" height=\"8\" fill=\"#CC79A7\">\(tip)</rect>\n"
            case .violation:
                out += "<line x1=\"\(f(at))\" y1=\"\(f(Self.top))\" x2=\"\(f(at))\" y2=\"\(f(lanesBottom))\" "
                out += "stroke=\"#FF0000\" stroke-width=\"2\">\(tip)</line>\n"
                out += "<text x=\"\(f(at + 3))\" y=\"\(f(lanesBottom + 12))\" fill=\"#FF0000\">"
                out += "\(escape(String(mark.text.prefix(60))))</text>\n"
            case .delivery(let lane):
                let y = laneTop(lane) + Self.laneHeight / 2
                out += "<circle cx=\"\(f(at))\" cy=\"\(f(y))\" r=\"2.5\" fill=\"black\">\(tip)</circle>\n"
            case .gap(let lane):
                let y = laneTop(lane) + Self.laneHeight / 2
                out += "<path d=\"M\(f(at)),\(f(y - 6)) L\(f(at + 5)),\(f(y)) L\(f(at)),\(f(y + 6)) "
                out += "L\(f(at - 5)),\(f(y)) Z\" fill=\"#FF00FF\">\(tip)</path>\n"
            }
        }
        out += axis(span: span, plotWidth: plotWidth, y: lanesBottom + 22)
        out += "</svg>\n"
        return out
    }

    /// A time axis with 1-2-5 ticks over [0, span] seconds.
    func axis(span: Double, plotWidth: Double, y: Double) -> String {
        let raw = span / 8
        let magnitude = pow(10, floor(log10(raw)))
        let step = [1.0, 2, 5, 10].map { $0 * magnitude }.first { $0 >= raw } ?? 10 * magnitude
        var out = "<line x1=\"\(f(Self.left))\" y1=\"\(f(y))\" x2=\"\(f(Self.left + plotWidth))\" y2=\"\(f(y))\" "
        out += "stroke=\"black\"/>\n"
        var tick = 0.0
        while tick <= span * (1 + 1e-9) {
            let x = Self.left + tick / span * plotWidth
            out += "<line x1=\"\(f(x))\" y1=\"\(f(y))\" x2=\"\(f(x))\" y2=\"\(f(y + 4))\" stroke=\"black\"/>\n"
            out +=
                "<text x=\"\(f(x))\" y=\"\(f(y + 16))\" text-anchor=\"middle\">\(String(format: "%g", tick)) s</text>\n"
            tick += step
        }
        return out
    }

    private func f(_ value: Double) -> String { String(format: "%.1f", value) }

    /// XML-escaped text for the picture: the package's one XML escaper.
    private func escape(_ text: String) -> String { SVGWriter.escape(text) }
}

extension Duration {
    /// This duration in seconds, as a double (for drawing).
    fileprivate var drawnSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) * 1e-18
    }
}

extension String {
    /// The rest of the string after `prefix`, or nil if it does not start with it.
    fileprivate func afterPrefix(_ prefix: String) -> String? {
        hasPrefix(prefix) ? String(dropFirst(prefix.count)) : nil
    }
}
