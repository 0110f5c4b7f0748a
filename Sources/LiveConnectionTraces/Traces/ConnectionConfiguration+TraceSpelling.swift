public import LiveConnection

extension ConnectionConfiguration {
    /// The configuration as trace header lines, one `key: value` per field, in a fixed order.
    ///
    /// ```swift
    /// ConnectionConfiguration().traceHeaderLines.first   // ("heartbeat-interval", "25000ms")
    /// ```
    ///
    /// One line per field (rather than one long line) so that a diff of two traces points
    /// at the knob that differs.
    public var traceHeaderLines: [(key: String, value: String)] {
        [
            ("heartbeat-interval", heartbeatInterval.traceFormatted),
            ("heartbeat-timeout", heartbeatTimeout.traceFormatted),
            ("connect-timeout", connectTimeout.traceFormatted),
            ("backoff", backoff.traceWords),
            ("terminal-close-codes", Self.spell(terminalCloseCodes.map(\.rawValue))),
            ("refresh-close-codes", Self.spell(refreshCloseCodes.map(\.rawValue))),
            ("terminal-handshake-statuses", Self.spell(terminalHandshakeStatuses)),
            ("refresh-handshake-statuses", Self.spell(refreshHandshakeStatuses)),
            ("resume", resume ? "true" : "false"),
        ]
    }

    /// The header keys of ``traceHeaderLines``, all required in a trace.
    public static let traceHeaderKeys = ConnectionConfiguration().traceHeaderLines.map(\.key)

    /// The fields added after traces were first written, as header lines: each written only
    /// when it differs from its default, so every trace written before them still reads (and
    /// re-encodes) byte for byte, and means what it meant.
    ///
    /// ```swift
    /// var configuration = ConnectionConfiguration()
    /// try configuration.limitAttempts(to: 3)
    /// configuration.traceOptionalHeaderLines   // [("maximum-attempts", "3")]
    /// ```
    public var traceOptionalHeaderLines: [(key: String, value: String)] {
        var lines: [(key: String, value: String)] = []
        if let maximumAttempts { lines.append(("maximum-attempts", "\(maximumAttempts)")) }
        switch credentialsTiming {
        case .afterExpiry: break
        case .beforeEveryConnect: lines.append(("credentials-timing", "before-every-connect"))
        }
        return lines
    }

    /// The header keys of ``traceOptionalHeaderLines``, each optional in a trace.
    public static let traceOptionalHeaderKeys = ["maximum-attempts", "credentials-timing"]

    /// Sets the field named by a header key from its value.
    mutating func setTraceField(_ key: String, to value: String) throws(LineProblem) {
        switch key {
        case "heartbeat-interval": heartbeatInterval = try Self.positive(value)
        case "heartbeat-timeout": heartbeatTimeout = try Self.positive(value)
        case "connect-timeout": connectTimeout = try Self.positive(value)
        case "backoff": backoff = try BackoffPolicy(traceWords: value)
        case "terminal-close-codes":
            terminalCloseCodes = Set(
                try Self.numbers(value, "a close code", as: UInt16.self).map { CloseCode(rawValue: $0) })
        case "refresh-close-codes":
            refreshCloseCodes = Set(
                try Self.numbers(value, "a close code", as: UInt16.self).map { CloseCode(rawValue: $0) })
        case "terminal-handshake-statuses":
            terminalHandshakeStatuses = Set(try Self.numbers(value, "an HTTP status", as: Int.self))
        case "refresh-handshake-statuses":
            refreshHandshakeStatuses = Set(try Self.numbers(value, "an HTTP status", as: Int.self))
        case "resume": resume = try TraceNumber.bool(value, "resume")
        case "maximum-attempts":
            let limit = try TraceNumber.integer(value, "an attempt limit", as: Int.self)
            do throws(ConfigurationError) {
                try limitAttempts(to: limit)
            } catch {
                throw LineProblem("\(error)")
            }
        case "credentials-timing":
            switch value {
            case "after-expiry": credentialsTiming = .afterExpiry
            case "before-every-connect": credentialsTiming = .beforeEveryConnect
            default:
                throw LineProblem("'credentials-timing' is 'after-expiry' or 'before-every-connect', not '\(value)'")
            }
        default: preconditionFailure("setTraceField called with '\(key)', which is not a configuration key")
        }
    }

    /// Sorted and space-separated (never in hash order), `none` when empty.
    private static func spell<T: BinaryInteger>(_ values: some Collection<T>) -> String {
        values.isEmpty ? "none" : values.sorted().map { "\($0)" }.joined(separator: " ")
    }

    private static func numbers<T: FixedWidthInteger>(_ text: String, _ what: String, as type: T.Type)
        throws(LineProblem) -> [T]
    {
        if text == "none" { return [] }
        var values: [T] = []
        for word in text.split(separator: " ") {
            values.append(try TraceNumber.integer(String(word), what, as: T.self))
        }
        return values
    }

    private static func positive(_ text: String) throws(LineProblem) -> Duration {
        let duration = try TraceToken.duration(text)
        guard duration > .zero else { throw LineProblem("'\(text)' must be a positive duration") }
        return duration
    }
}

extension BackoffPolicy {
    /// The policy as trace words: `full-jitter base=100ms cap=2000ms`, `table 0ms 1000ms 2000ms`, …
    ///
    /// ```swift
    /// BackoffPolicy.fullJitter().traceWords   // full-jitter base=1000ms cap=30000ms
    /// ```
    public var traceWords: String {
        switch kind {
        case .fullJitter(let base, let cap): "full-jitter base=\(base.traceFormatted) cap=\(cap.traceFormatted)"
        case .equalJitter(let base, let cap): "equal-jitter base=\(base.traceFormatted) cap=\(cap.traceFormatted)"
        case .decorrelatedJitter(let base, let cap):
            "decorrelated-jitter base=\(base.traceFormatted) cap=\(cap.traceFormatted)"
        case .proportionalJitter(let initial, let multiplier, let jitter, let maximum):
            "proportional-jitter initial=\(initial.traceFormatted) multiplier=\(multiplier) jitter=\(jitter) maximum=\(maximum.traceFormatted)"
        case .exponential(let base, let cap): "exponential base=\(base.traceFormatted) cap=\(cap.traceFormatted)"
        case .table(let delays): "table " + delays.map(\.traceFormatted).joined(separator: " ")
        }
    }

    /// Reads the spelling of ``traceWords``.
    init(traceWords: String) throws(LineProblem) {
        let tokens = try TraceToken.tokenize(traceWords)
        guard let name = tokens.first, name.key == nil else { throw LineProblem("expected a backoff policy") }
        var fields = TraceFields(Array(tokens.dropFirst()), context: "'\(name.value)'")
        func duration(_ key: String) throws(LineProblem) -> Duration {
            let value = try TraceToken.duration(try fields.keyed(key))
            guard value >= .zero else { throw LineProblem("\(key) cannot be negative") }
            return value
        }
        switch name.value {
        case "full-jitter":
            let base = try duration("base")
            self = .fullJitter(base: base, cap: try duration("cap"))
        case "equal-jitter":
            let base = try duration("base")
            self = .equalJitter(base: base, cap: try duration("cap"))
        case "decorrelated-jitter":
            let base = try duration("base")
            self = .decorrelatedJitter(base: base, cap: try duration("cap"))
        case "exponential":
            let base = try duration("base")
            self = .exponential(base: base, cap: try duration("cap"))
        case "proportional-jitter":
            let initial = try duration("initial")
            let multiplier = try TraceNumber.double(try fields.keyed("multiplier"), "a multiplier")
            let jitter = try TraceNumber.double(try fields.keyed("jitter"), "a jitter fraction")
            guard multiplier >= 1, (0...1).contains(jitter) else {
                throw LineProblem("proportional jitter needs multiplier ≥ 1 and jitter in 0…1")
            }
            self = .proportionalJitter(
                initial: initial, multiplier: multiplier, jitter: jitter, maximum: try duration("maximum"))
        case "table":
            var delays: [Duration] = []
            for word in try fields.remainingPositionals("delays") {
                let delay = try TraceToken.duration(word)
                guard delay >= .zero else { throw LineProblem("a table delay cannot be negative") }
                delays.append(delay)
            }
            guard !delays.isEmpty else { throw LineProblem("a backoff table needs at least one delay") }
            self = .table(delays)
        default:
            throw LineProblem(
                "unknown backoff policy '\(name.value)' (full-jitter, equal-jitter, decorrelated-jitter, proportional-jitter, exponential, table)"
            )
        }
        try fields.finish()
    }
}
