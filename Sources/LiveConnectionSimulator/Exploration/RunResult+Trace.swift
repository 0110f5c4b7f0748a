import LiveConnection
public import LiveConnectionTraces

extension RunResult {
    /// The run's log as a trace's observed section (lines without a time keep the previous one).
    public var observedEvents: [ObservedEvent] {
        var events: [ObservedEvent] = []
        for line in log {
            if let event = ObservedEvent(runLogLine: line) {
                events.append(event)
            } else {
                events.append(ObservedEvent(at: events.last?.at ?? .zero, line))
            }
        }
        return events
    }

    /// Whether the run shows what `expectation` says it must.
    public func satisfies(_ expectation: Expectation) -> Bool {
        switch expectation {
        case .pass: passed
        case .violation(let name): violations.contains { $0.rule.name == name }
        }
    }
}
