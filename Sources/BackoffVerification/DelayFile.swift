import LiveConnection

/// Delays recorded elsewhere, read from text: one delay per line, or `attempt,delay` pairs.
///
/// ```swift
/// let observations = try DelayFile.parse("1,0.8s\n2,1500ms\n3,2.9\n1,950ms\n")
/// // two runs: attempts 1–3, then a new run starting again at attempt 1
/// ```
///
/// Durations are `1.5s`, `250ms`, `120us`/`µs`, `40ns`, `2m` or bare seconds, parsed to
/// whole nanoseconds without going through a floating-point value. Blank lines and lines
/// starting with `#` are skipped. With bare delays, the lines are one run of consecutive
/// attempts 1, 2, 3, … unless `attempt` fixes them all to one attempt (independent draws).
/// With pairs, a line whose attempt does not follow the previous line's starts a new run.
public enum DelayFile {
    /// Parses the text; any malformed line is an error naming its line number.
    public static func parse(_ text: String, attempt fixedAttempt: Int? = nil) throws(DelayFileError)
        -> [DelayObservation]
    {
        var observations: [DelayObservation] = []
        var pairs: Bool?
        var run = -1  // incremented before the first run's first delay
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            let line = String(rawLine.trimmingCharacters(in: " \t\r"))
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" || $0 == ";" }).map(
                String.init)
            guard fields.count == 1 || fields.count == 2 else {
                throw .malformedLine(number: number, text: line, reason: "expected a delay or attempt,delay")
            }
            let isPair = fields.count == 2
            if let pairs, pairs != isPair {
                throw .malformedLine(number: number, text: line, reason: "mixes bare delays and attempt,delay pairs")
            }
            pairs = isPair
            if isPair && fixedAttempt != nil {
                throw .malformedLine(
                    number: number, text: line, reason: "attempt,delay pairs carry their own attempt: drop --attempt")
            }
            guard let delay = parseDuration(fields[fields.count - 1]) else {
                throw .malformedLine(
                    number: number, text: line,
                    reason: "'\(fields[fields.count - 1])' is not a duration (try 1.5s, 250ms or 0.25)")
            }
            if delay < .zero {
                throw .malformedLine(number: number, text: line, reason: "a delay cannot be negative")
            }
            let last = observations.last
            if isPair {
                guard let attempt = Int(fields[0]), attempt >= 1 else {
                    throw .malformedLine(
                        number: number, text: line, reason: "'\(fields[0])' is not an attempt number ≥ 1")
                }
                let continues = last.map { attempt == $0.attempt + 1 } ?? false
                if !continues { run += 1 }
                observations.append(
                    DelayObservation(run: run, attempt: attempt, delay: delay, previous: continues ? last?.delay : nil))
            } else if let fixedAttempt {
                run += 1
                observations.append(DelayObservation(run: run, attempt: fixedAttempt, delay: delay, previous: nil))
            } else {
                // Bare delays without --attempt: one client's consecutive attempts.
                observations.append(
                    DelayObservation(run: 0, attempt: (last?.attempt ?? 0) + 1, delay: delay, previous: last?.delay))
            }
        }
        if observations.isEmpty { throw .empty }
        return observations
    }

    /// `1.5s`, `250ms`, `120us`, `120µs`, `40ns`, `2m`, `0.25` (seconds) → a duration,
    /// exactly, in whole nanoseconds (digits past the nanosecond are rounded half up).
    public static func parseDuration(_ text: String) -> Duration? {
        let units: [(String, Int64)] = [
            ("ns", 1), ("us", 1000), ("µs", 1000), ("ms", 1_000_000), ("s", 1_000_000_000), ("m", 60_000_000_000),
        ]
        var number = Substring(text)
        var scale: Int64 = 1_000_000_000
        for (suffix, unitScale) in units where text.hasSuffix(suffix) {
            number = text.dropLast(suffix.count)
            scale = unitScale
            break
        }
        var negative = false
        if number.hasPrefix("-") {
            negative = true
            number = number.dropFirst()
        }
        let parts = number.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), !number.isEmpty,
            parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
            !(parts[0].isEmpty && (parts.count == 1 || parts[1].isEmpty))
        else { return nil }
        guard let whole = parts[0].isEmpty ? 0 : Int64(parts[0]) else { return nil }
        var (total, overflow) = whole.multipliedReportingOverflow(by: scale)
        if overflow { return nil }
        if parts.count == 2 {
            // Fraction digits times the scale, one digit at a time, exact in integers.
            var place = scale
            var fraction: Int64 = 0
            var roundUp = false
            for digit in parts[1] {
                let value = Int64(digit.wholeNumberValue ?? 0)
                if place >= 10 {
                    place /= 10
                    fraction += value * place
                } else {
                    roundUp = roundUp || (place == 1 && value >= 5)
                    place = 0
                }
            }
            (total, overflow) = total.addingReportingOverflow(fraction + (roundUp ? 1 : 0))
            if overflow { return nil }
        }
        return .nanoseconds(negative ? -total : total)
    }
}

/// A delay file that cannot be read, with the line a user must fix.
public enum DelayFileError: Error, Equatable, CustomStringConvertible {
    case malformedLine(number: Int, text: String, reason: String)
    case empty
    /// The claimed policy needs something the file does not say.
    case unsupported(String)

    public var description: String {
        switch self {
        case .malformedLine(let number, let text, let reason): "line \(number): \(reason): '\(text)'"
        case .empty: "the file holds no delays"
        case .unsupported(let reason): reason
        }
    }
}

extension Substring {
    func trimmingCharacters(in set: String) -> Substring {
        var result = self
        while let first = result.first, set.contains(first) { result = result.dropFirst() }
        while let last = result.last, set.contains(last) { result = result.dropLast() }
        return result
    }
}
