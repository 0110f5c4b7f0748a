/// The one duration syntax of every `livesim` option: a decimal number and a unit, or several
/// (`1.5s`, `1500ms`, `250us`, `2m`, `1h30m`, `0.25h`); units `ns`, `us` (or `µs`), `ms`, `s`,
/// `m`, `h`; a bare number means seconds (`25`). Exact to the nanosecond, at most ±292 years;
/// `1e300`, `inf` and `nan` are not durations.
enum DurationSyntax {
    static let example = "a duration such as 1.5s, 1500ms, 2m or 1h30m"

    /// Parses `text` for option `name` and checks it lies in `range`.
    static func parse(_ text: String, for name: String, in range: ClosedRange<Duration>) throws(ArgumentError)
        -> Duration
    {
        guard let nanoseconds = nanoseconds(text) else {
            throw .invalidValue(name, text, expected: example)
        }
        guard let value = nanoseconds, range.contains(.nanoseconds(value)) else {
            throw .outOfRange(name, text, range: describe(range))
        }
        return .nanoseconds(value)
    }

    /// "between 1ms and 1000h".
    static func describe(_ range: ClosedRange<Duration>) -> String {
        "between \(formatDuration(range.lowerBound)) and \(formatDuration(range.upperBound))"
    }

    private static let units: [(suffix: String, nanoseconds: Int64)] = [
        ("ns", 1), ("us", 1_000), ("µs", 1_000), ("ms", 1_000_000), ("s", 1_000_000_000), ("m", 60_000_000_000),
        ("h", 3_600_000_000_000),
    ]

    /// nil: not the syntax; `.some(nil)`: the syntax, but beyond ±2^63 ns.
    private static func nanoseconds(_ text: String) -> Int64?? {
        var rest = Substring(text)
        let negative = rest.first == "-"
        if negative || rest.first == "+" { rest = rest.dropFirst() }
        guard !rest.isEmpty else { return nil }
        var total: Int64? = 0
        var first = true
        while !rest.isEmpty {
            let number = rest.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
            rest = rest.dropFirst(number.count)
            let suffix = rest.prefix { !($0.isASCII && ($0.isNumber || $0 == ".")) }
            rest = rest.dropFirst(suffix.count)
            let scale: Int64
            if suffix.isEmpty {
                // A bare number means seconds, and only on its own ("1m30" is a typo, not 1m30s).
                guard first else { return nil }
                scale = 1_000_000_000
            } else {
                guard let unit = units.first(where: { $0.suffix == suffix }) else { return nil }
                scale = unit.nanoseconds
            }
            guard let part = decimal(number, scale: scale) else { return nil }
            if let sum = total, let part {
                let (value, overflow) = sum.addingReportingOverflow(part)
                total = overflow ? nil : value
            } else {
                total = nil
            }
            first = false
        }
        return .some(total.map { negative ? -$0 : $0 })
    }

    /// `digits[.digits] × scale`: nil when not a decimal, `.some(nil)` on overflow.
    private static func decimal(_ number: Substring, scale: Int64) -> Int64?? {
        let parts = number.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), !(parts[0].isEmpty && (parts.count == 1 || parts[1].isEmpty)) else {
            return nil
        }
        var whole: Int64 = 0
        for digit in parts[0] {
            let (shifted, overflowA) = whole.multipliedReportingOverflow(by: 10)
            let (sum, overflowB) = shifted.addingReportingOverflow(Int64(digit.wholeNumberValue!))
            if overflowA || overflowB { return .some(nil) }
            whole = sum
        }
        let (scaled, overflow) = whole.multipliedReportingOverflow(by: scale)
        if overflow { return .some(nil) }
        var fraction: Int64 = 0
        var place = scale
        // Digits past the nanosecond are dropped.
        for digit in parts.count == 2 ? parts[1] : "" where place >= 10 {
            place /= 10
            fraction += Int64(digit.wholeNumberValue!) * place
        }
        let (sum, overflowSum) = scaled.addingReportingOverflow(fraction)
        return overflowSum ? .some(nil) : .some(sum)
    }
}

/// "1h", "10m", "90s", "1h30m", "500ms", "1.5ms": the shortest spelling ``DurationSyntax`` reads back exactly.
func formatDuration(_ duration: Duration) -> String {
    let nanoseconds = duration.nanoseconds
    if nanoseconds < 0 { return "-" + formatDuration(.nanoseconds(nanoseconds == .min ? .max : -nanoseconds)) }
    if nanoseconds % 1_000_000_000 != 0 { return duration.traceFormatted }
    var seconds = nanoseconds / 1_000_000_000
    var text = ""
    if seconds >= 3600 {
        text += "\(seconds / 3600)h"
        seconds %= 3600
    }
    if seconds >= 60 {
        text += "\(seconds / 60)m"
        seconds %= 60
    }
    if seconds > 0 || text.isEmpty { text += "\(seconds)s" }
    return text
}

/// Simulated time for a report, in the unit that shows it: hours (with the seconds) from an
/// hour on, seconds below, milliseconds below one second. A report of a few short or
/// failing runs must not read "0.0 h" when it simulated 28 s.
func formatSimulatedTime(seconds: Double) -> String {
    if seconds >= 3600 { return String(format: "%.1f h (%.0f s)", seconds / 3600, seconds) }
    if seconds >= 1 { return String(format: "%.1f s", seconds) }
    return String(format: "%.1f ms", seconds * 1000)
}
