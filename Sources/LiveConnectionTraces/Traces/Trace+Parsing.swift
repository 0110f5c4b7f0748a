import LiveConnection
import SimulationKernel

extension Trace {
    /// Header keys every trace must have, in the order they are written.
    public static let requiredHeaderKeys =
        ["seed", "generator", "strategy"] + ConnectionConfiguration.traceHeaderKeys + [
            "duration", "manager-seed", "log-capacity", "feed-topic",
        ]

    /// Header keys a trace may have.
    public static let optionalHeaderKeys =
        ConnectionConfiguration.traceOptionalHeaderKeys + [
            "manager-words", "variant", "client", "clients", "claims", "test", "kept-performs", "expect",
            "observed-build",
        ]

    /// Reads a trace written by ``encode()`` (or by hand, in the same format).
    ///
    /// Blank lines and lines starting with `#` are ignored outside the observed section;
    /// header keys starting with `x-` are ignored (room for tools to annotate); any other
    /// unknown key is an error, so a typo never silently changes a replay.
    ///
    /// - Throws: ``TraceError``, always with the line number; never traps on any input.
    public init(parsing text: String) throws(TraceError) {
        let lines = Self.splitLines(text)
        var reader = TraceReader(lines: lines)
        self = try reader.read()
    }

    /// Splits on line feeds at the scalar level, dropping a carriage return before each
    /// (a file saved with CRLF endings reads the same) and the empty piece after a final newline.
    static func splitLines(_ text: String) -> [String] {
        var lines: [String] = []
        var current = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if scalar == "\n" {
                if current.last == "\r" { current.removeLast() }
                lines.append(String(current))
                current = String.UnicodeScalarView()
            } else {
                current.append(scalar)
            }
        }
        if !current.isEmpty {
            if current.last == "\r" { current.removeLast() }
            lines.append(String(current))
        }
        return lines
    }
}

/// The parser's cursor: the sections in order, each line checked as it is read.
private struct TraceReader {
    let lines: [String]
    /// Index of the next line (0-based; line numbers in errors are 1-based).
    var index = 0

    init(lines: [String]) { self.lines = lines }

    func malformed(_ number: Int, _ reason: String) -> TraceError {
        .malformedLine(number: number, text: number <= lines.count ? lines[number - 1] : "", reason: reason)
    }

    mutating func read() throws(TraceError) -> Trace {
        try readVersion()
        let header = try readHeader()
        var trace = try header.makeTrace()
        var schedule: [ScheduledAction] = []
        var observed: [ObservedEvent] = []
        var inObserved = false
        while index < lines.count {
            let line = lines[index]
            index += 1
            if inObserved {
                if line.isEmpty { continue }
                observed.append(try observedEvent(line, number: index))
                continue
            }
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line == "observed:" {
                inObserved = true
                continue
            }
            let action = try scheduled(line, number: index)
            if let last = schedule.last, action.at < last.at {
                throw malformed(
                    index, "time goes backwards (\(action.at.traceFormatted) after \(last.at.traceFormatted))")
            }
            schedule.append(action)
        }
        trace.scenario.schedule = schedule
        trace.observed = observed
        // The file says which build its events came from (assigning them stamped this one).
        trace.observedBuild = observed.isEmpty ? nil : try header.observedBuild()
        return trace
    }

    mutating func readVersion() throws(TraceError) {
        guard let first = lines.first else {
            throw .malformedLine(
                number: 1, text: "", reason: "empty file: a trace starts with 'livesim-trace \(Trace.formatVersion)'")
        }
        index = 1
        let words = first.split(separator: " ", omittingEmptySubsequences: false)
        guard words.count == 2, words[0] == "livesim-trace" else {
            throw malformed(1, "not a livesim trace: the first line must be 'livesim-trace \(Trace.formatVersion)'")
        }
        guard words[1] == "\(Trace.formatVersion)" else { throw .unsupportedVersion(found: String(words[1]), line: 1) }
    }

    /// Reads `key: value` lines up to and including `schedule:`.
    mutating func readHeader() throws(TraceError) -> Header {
        var header = Header(lineAfter: lines.count + 1)
        while index < lines.count {
            let line = lines[index]
            index += 1
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line == "schedule:" {
                header.lineAfter = index
                return header
            }
            guard let colon = line.unicodeScalars.firstIndex(of: ":") else {
                throw malformed(index, "expected 'key: value' or 'schedule:'")
            }
            let key = String(line.unicodeScalars[..<colon])
            var rest = line.unicodeScalars[line.unicodeScalars.index(after: colon)...]
            guard rest.first == " " else { throw malformed(index, "expected a space after '\(key):'") }
            rest = rest.dropFirst()
            let value = String(rest)
            if key.hasPrefix("x-") { continue }
            guard Trace.requiredHeaderKeys.contains(key) || Trace.optionalHeaderKeys.contains(key) else {
                throw malformed(index, "unknown header key '\(key)'")
            }
            guard header.values[key] == nil else { throw malformed(index, "'\(key)' appears twice") }
            guard !value.isEmpty else { throw malformed(index, "'\(key)' has no value") }
            header.values[key] = (value, index)
        }
        throw .missingHeader(key: "schedule", line: lines.count + 1)
    }

    func scheduled(_ line: String, number: Int) throws(TraceError) -> ScheduledAction {
        do throws(LineProblem) {
            let tokens = try TraceToken.tokenize(line)
            guard let time = tokens.first, time.key == nil else { throw LineProblem("expected '<time> <action>'") }
            let at = try TraceToken.duration(time.value)
            guard at >= .zero else { throw LineProblem("an action cannot happen before the start") }
            return ScheduledAction(at: at, try SimulationAction.parse(Array(tokens.dropFirst())))
        } catch {
            throw malformed(number, error.reason)
        }
    }

    func observedEvent(_ line: String, number: Int) throws(TraceError) -> ObservedEvent {
        let scalars = line.unicodeScalars
        let space = scalars.firstIndex(of: " ") ?? scalars.endIndex
        do throws(LineProblem) {
            let at = try TraceToken.duration(String(scalars[..<space]))
            let text = space == scalars.endIndex ? "" : String(scalars[scalars.index(after: space)...])
            return ObservedEvent(at: at, text)
        } catch {
            throw malformed(number, "observed lines start with a time: \(error.reason)")
        }
    }
}

/// The header's raw values, each with its line number, checked once all are read.
private struct Header {
    var values: [String: (value: String, line: Int)] = [:]
    /// The line after the header (for errors about a key that never came).
    var lineAfter: Int

    init(lineAfter: Int) { self.lineAfter = lineAfter }

    func required(_ key: String) throws(TraceError) -> (value: String, line: Int) {
        guard let entry = values[key] else { throw .missingHeader(key: key, line: lineAfter) }
        return entry
    }

    /// Runs `parse` on a value, turning its problem into an error at the key's line.
    func field<T>(_ key: String, _ parse: (String) throws(LineProblem) -> T) throws(TraceError) -> T {
        let entry = try required(key)
        do throws(LineProblem) {
            return try parse(entry.value)
        } catch {
            throw .malformedLine(number: entry.line, text: "\(key): \(entry.value)", reason: error.reason)
        }
    }

    func optionalField<T>(_ key: String, _ parse: (String) throws(LineProblem) -> T) throws(TraceError) -> T? {
        guard values[key] != nil else { return nil }
        return try field(key, parse)
    }

    func makeTrace() throws(TraceError) -> Trace {
        // Checked in the order they are written, so the first missing key is reported first.
        for key in Trace.requiredHeaderKeys { _ = try required(key) }
        var configuration = ConnectionConfiguration()
        for key in ConnectionConfiguration.traceHeaderKeys {
            try field(key) { (value) throws(LineProblem) in try configuration.setTraceField(key, to: value) }
        }
        for key in ConnectionConfiguration.traceOptionalHeaderKeys {
            _ = try optionalField(key) { (value) throws(LineProblem) in
                try configuration.setTraceField(key, to: value)
            }
        }
        let seed = try field("seed") { (value) throws(LineProblem) in
            try TraceNumber.integer(value, "a seed (0…2⁶⁴−1)", as: UInt64.self)
        }
        let generator = try field("generator", Self.generator)
        let scenario = Scenario(
            seed: seed, configuration: configuration, strategy: try field("strategy", Self.strategy),
            duration: try field("duration") { (value) throws(LineProblem) in
                let duration = try TraceToken.duration(value)
                guard duration > .zero else { throw LineProblem("the duration must be positive") }
                return duration
            },
            schedule: [],
            managerSeed: try field("manager-seed") { (value) throws(LineProblem) in
                try TraceNumber.integer(value, "a seed (0…2⁶⁴−1)", as: UInt64.self)
            },
            managerWords: try optionalField("manager-words", Self.words) ?? [],
            logCapacity: try field("log-capacity") { (value) throws(LineProblem) in
                let capacity = try TraceNumber.integer(value, "a message count", as: Int.self)
                guard capacity >= 0 else { throw LineProblem("the log capacity cannot be negative") }
                return capacity
            },
            feedTopic: try field("feed-topic") { (value) throws(LineProblem) in
                try Self.singleWord(value, "'feed-topic'")
            })
        return Trace(
            scenario: scenario, generator: generator,
            variant: try optionalField("variant") { (value) throws(LineProblem) in
                try Self.singleWord(value, "'variant'")
            },
            client: try optionalField("client") { (value) throws(LineProblem) in
                try Self.singleWord(value, "'client'")
            },
            clients: try optionalField("clients") { (value) throws(LineProblem) in
                let count = try TraceNumber.integer(value, "a client count", as: Int.self)
                guard (1...10_000).contains(count) else { throw LineProblem("'clients' must be 1…10000") }
                return count
            } ?? 1,
            expectation: try optionalField("expect", Self.expectation),
            claims: try optionalField("claims") { (value) throws(LineProblem) in value },
            test: try optionalField("test") { (value) throws(LineProblem) in try Self.singleWord(value, "'test'") },
            keptPerforms: try optionalField("kept-performs", Self.ordinals))
    }

    /// `kept-performs`: 0-based call numbers, rising, or `none`.
    static func ordinals(_ value: String) throws(LineProblem) -> [Int] {
        var ordinals: [Int] = []
        if value == "none" { return [] }
        for token in value.split(separator: " ", omittingEmptySubsequences: true) {
            let ordinal = try TraceNumber.integer(String(token), "a perform call number", as: Int.self)
            guard ordinal >= 0, ordinal > (ordinals.last ?? -1) else {
                throw LineProblem("'kept-performs' lists call numbers from 0 up, each once, rising")
            }
            ordinals.append(ordinal)
        }
        return ordinals
    }

    /// The `observed-build` line: which build's run the observed section shows.
    func observedBuild() throws(TraceError) -> BuildMode? {
        try optionalField("observed-build") { (value) throws(LineProblem) in
            guard let mode = BuildMode(rawValue: value) else {
                throw LineProblem("'observed-build' is 'debug' or 'release', not '\(value)'")
            }
            return mode
        }
    }

    static func words(_ value: String) throws(LineProblem) -> [UInt64] {
        var words: [UInt64] = []
        for token in value.split(separator: " ", omittingEmptySubsequences: true) {
            words.append(try TraceNumber.integer(String(token), "a random word (0…2⁶⁴−1)", as: UInt64.self))
        }
        guard !words.isEmpty else { throw LineProblem("'manager-words' needs at least one word") }
        return words
    }

    static func singleWord(_ value: String, _ context: String) throws(LineProblem) -> String {
        var fields = TraceFields(try TraceToken.tokenize(value), context: context)
        let word = try fields.positional("a name")
        try fields.finish()
        return word
    }

    static func generator(_ value: String) throws(LineProblem) -> GeneratorID {
        var fields = TraceFields(try TraceToken.tokenize(value), context: "'generator'")
        let name = try fields.positional("a name")
        let version = try TraceNumber.integer(try fields.positional("a version"), "a generator version", as: Int.self)
        try fields.finish()
        return GeneratorID(name: name, version: version)
    }

    static func strategy(_ value: String) throws(LineProblem) -> StrategyChoice {
        var fields = TraceFields(try TraceToken.tokenize(value), context: "'strategy'")
        let name = try fields.positional("a strategy name")
        let strategy: StrategyChoice
        switch name {
        case "fifo":
            strategy = .fifo
        case "random":
            strategy = .random(seed: try TraceNumber.integer(try fields.keyed("seed"), "a seed", as: UInt64.self))
        case "pct":
            let seed = try TraceNumber.integer(try fields.keyed("seed"), "a seed", as: UInt64.self)
            let depth = try TraceNumber.integer(try fields.keyed("depth"), "a PCT depth", as: Int.self)
            let steps = try TraceNumber.integer(try fields.keyed("steps"), "a step count", as: Int.self)
            guard depth >= 1, steps >= 1 else { throw LineProblem("PCT needs depth ≥ 1 and steps ≥ 1") }
            strategy = .pct(seed: seed, depth: depth, expectedSteps: steps)
        default:
            throw LineProblem("unknown strategy '\(name)' (fifo, random, pct)")
        }
        try fields.finish()
        return strategy
    }

    static func expectation(_ value: String) throws(LineProblem) -> Expectation {
        var fields = TraceFields(try TraceToken.tokenize(value), context: "'expect'")
        let expectation: Expectation
        switch try fields.positional("pass or violation NAME") {
        case "pass": expectation = .pass
        case "violation": expectation = .violation(try fields.positional("an invariant name"))
        case let other: throw LineProblem("'expect' is 'pass' or 'violation NAME', not '\(other)'")
        }
        try fields.finish()
        return expectation
    }
}
