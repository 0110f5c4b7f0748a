import LiveConnection

/// One broken rule: which, which judge saw it, when, and what was seen — the one failure of
/// every judge that watches a run (the simulator's invariant monitor, the wire's oracles).
///
/// ```swift
/// if let violation = result.violations.first {
///     print(violation)   // "1500ms single-live-transport: a second socket opened while one was live"
/// }
/// result.violations.contains { $0.rule == .resubscribeBeforeOpen && $0.judge == .simulator }
/// ```
///
/// Time is the span since the run (or the recorded history) started, printed as traces
/// print it (`Duration.traceFormatted`), so a violation reads the same in a report, a log and
/// a trace's `observed` section whichever judge found it.
public struct Violation: Hashable, Sendable, CustomStringConvertible {
    /// The rule broken.
    public var rule: Rule
    /// Who saw it break.
    public var judge: Rule.Judge
    /// When, since the run started.
    public var at: Duration
    /// The client a rule judged from the wire is about (0 in a single-client run, its index in
    /// a herd, -1 for the herd as a whole); nil when the judge watches one manager.
    public var client: Int?
    /// What was seen, in the judge's words.
    public var detail: String

    public init(rule: Rule, judge: Rule.Judge, at: Duration, client: Int? = nil, detail: String) {
        self.rule = rule
        self.judge = judge
        self.at = at
        self.client = client
        self.detail = detail
    }

    public var description: String {
        let who = client.map { $0 < 0 ? " (the herd)" : " (client \($0))" } ?? ""
        return "\(at.traceFormatted) \(rule.name)\(who): \(detail)"
    }
}
