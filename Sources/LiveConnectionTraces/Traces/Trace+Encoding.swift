import LiveConnection

extension Trace {
    /// The trace as text: the version line, the header, `schedule:` and one line per
    /// action, then (if there is one) `observed:` and one line per event. Ends with a newline.
    ///
    /// ```swift
    /// try Trace(parsing: trace.encode()) == trace   // for every trace (see docs/trace-format.md)
    /// ```
    public func encode() -> String {
        var lines = ["livesim-trace \(Self.formatVersion)"]
        for (key, value) in headerLines { lines.append("\(key): \(value)") }
        lines.append("schedule:")
        for action in scenario.schedule { lines.append(action.traceLine) }
        if !observed.isEmpty {
            lines.append("observed:")
            for event in observed { lines.append(event.traceLine) }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The header as (key, value) pairs, in the order they are written.
    var headerLines: [(key: String, value: String)] {
        var lines: [(key: String, value: String)] = [
            ("seed", "\(scenario.seed)"),
            ("generator", generator.description),
            ("strategy", scenario.strategy.description),
        ]
        lines += scenario.configuration.traceHeaderLines
        lines += scenario.configuration.traceOptionalHeaderLines
        lines.append(("duration", scenario.duration.traceFormatted))
        lines.append(("manager-seed", "\(scenario.managerSeed)"))
        if !scenario.managerWords.isEmpty {
            lines.append(("manager-words", scenario.managerWords.map(String.init).joined(separator: " ")))
        }
        lines.append(("log-capacity", "\(scenario.logCapacity)"))
        lines.append(("feed-topic", TraceToken.word(scenario.feedTopic)))
        if let variant { lines.append(("variant", TraceToken.word(variant))) }
        if let client { lines.append(("client", TraceToken.word(client))) }
        if clients != 1 { lines.append(("clients", "\(clients)")) }
        if let claims { lines.append(("claims", claims)) }
        if let test { lines.append(("test", TraceToken.word(test))) }
        if let keptPerforms {
            // A header value cannot be empty: a run that kept none of its performs says so.
            lines.append(
                ("kept-performs", keptPerforms.isEmpty ? "none" : keptPerforms.map(String.init).joined(separator: " ")))
        }
        if let expectation { lines.append(("expect", expectation.description)) }
        if let observedBuild, !observed.isEmpty { lines.append(("observed-build", observedBuild.description)) }
        return lines
    }
}
