import LiveConnection

extension ObservedEvent {
    /// Reads one line of a ``RunResult/log`` (`"1500ms input …"`, the virtual instant then the event).
    ///
    /// ```swift
    /// ObservedEvent(runLogLine: "1500ms phase open")   // 1500ms, "phase open"
    /// ```
    public init?(runLogLine line: String) {
        let words = line.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
        guard let first = words.first, let at = try? TraceToken.duration(String(first)) else { return nil }
        self.init(at: at, words.count == 2 ? String(words[1]) : "")
    }
}

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
        case .violation(let name): violations.contains { $0.invariant.name == name }
        }
    }
}
