extension ObservedEvent {
    /// Reads one line of a `RunResult.log` (`"1500ms input …"`, the virtual instant then the event).
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
