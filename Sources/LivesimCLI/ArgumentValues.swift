/// Typed, range-checked options: numbers, durations, seed ranges, lists and choices.
/// Every reader takes its accepted range, and a value outside it is an error naming the range.
extension Arguments {
    /// `--name N`, an integer in `range`.
    mutating func integer(_ name: String, in range: ClosedRange<Int>) throws(ArgumentError) -> Int? {
        try option(name) { text throws(ArgumentError) in try Self.integer(text, for: name, in: range) }
    }

    mutating func integer(_ name: String, in range: ClosedRange<Int>, default value: Int) throws(ArgumentError) -> Int {
        try integer(name, in: range) ?? value
    }

    /// `--name X`, a decimal number in `range` (no infinities, no NaN).
    mutating func number(_ name: String, in range: ClosedRange<Double>, default value: Double) throws(ArgumentError)
        -> Double
    {
        try option(name) { text throws(ArgumentError) in
            guard let number = Double(text), number.isFinite else {
                throw .invalidValue(name, text, expected: "a decimal number such as 0.05")
            }
            guard range.contains(number) else {
                throw .outOfRange(name, text, range: "in \(range.lowerBound)...\(range.upperBound)")
            }
            return number
        } ?? value
    }

    /// `--name D` in ``DurationSyntax`` (`1.5s`, `1500ms`, `2m`, `1h30m`), within `range`.
    mutating func duration(_ name: String, in range: ClosedRange<Duration>) throws(ArgumentError) -> Duration? {
        try option(name) { text throws(ArgumentError) in try DurationSyntax.parse(text, for: name, in: range) }
    }

    mutating func duration(_ name: String, in range: ClosedRange<Duration>, default value: Duration)
        throws(ArgumentError)
        -> Duration
    {
        try duration(name, in: range) ?? value
    }

    /// `--name A..<B` (or `A..B`, `A-B`, `A...B`, `N`) in ``SeedRangeSyntax``; never empty.
    mutating func seeds(_ name: String) throws(ArgumentError) -> Range<UInt64>? {
        try option(name) { text throws(ArgumentError) in try SeedRangeSyntax.parse(text, for: name) }
    }

    mutating func seeds(_ name: String, default value: Range<UInt64>) throws(ArgumentError) -> Range<UInt64> {
        try seeds(name) ?? value
    }

    /// `--name S`, one 64-bit seed (`0...18446744073709551615`).
    mutating func seed(_ name: String) throws(ArgumentError) -> UInt64? {
        try option(name) { text throws(ArgumentError) in
            guard let seed = UInt64(text) else {
                throw Self.isDigits(text)
                    ? .outOfRange(name, text, range: "in 0...\(UInt64.max)")
                    : .invalidValue(name, text, expected: "a seed, a whole number such as 42")
            }
            return seed
        }
    }

    /// `--name A,B,C`: a comma-separated list of `count` integers, each in `range`.
    mutating func integers(_ name: String, in range: ClosedRange<Int>, count: ClosedRange<Int>) throws(ArgumentError)
        -> [Int]?
    {
        try option(name) { text throws(ArgumentError) in
            let items = text.split(separator: ",", omittingEmptySubsequences: false)
            guard count.contains(items.count) else {
                throw .outOfRange(name, text, range: "a list of \(count.lowerBound)...\(count.upperBound) numbers")
            }
            var values: [Int] = []
            for item in items { values.append(try Self.integer(String(item), for: name, in: range)) }
            return values
        }
    }

    /// `--name D,D,…`: a comma-separated list of `count` durations, each in `range`.
    mutating func durations(_ name: String, in range: ClosedRange<Duration>, count: ClosedRange<Int>)
        throws(ArgumentError) -> [Duration]?
    {
        try option(name) { text throws(ArgumentError) in
            let items = text.split(separator: ",", omittingEmptySubsequences: false)
            guard count.contains(items.count) else {
                throw .outOfRange(name, text, range: "a list of \(count.lowerBound)...\(count.upperBound) durations")
            }
            var values: [Duration] = []
            for item in items { values.append(try DurationSyntax.parse(String(item), for: name, in: range)) }
            return values
        }
    }

    /// `--name WORD`, one of `choices`.
    mutating func choice(_ name: String, from choices: [String]) throws(ArgumentError) -> String? {
        try option(name) { text throws(ArgumentError) in
            guard choices.contains(text) else {
                throw .invalidValue(name, text, expected: "one of " + choices.joined(separator: ", "))
            }
            return text
        }
    }

    /// One integer in `range`, or the error that says why not.
    static func integer(_ text: String, for name: String, in range: ClosedRange<Int>) throws(ArgumentError) -> Int {
        guard let value = Int(text) else {
            // All digits but too long for 64 bits: out of range rather than malformed.
            throw isDigits(text)
                ? .outOfRange(name, text, range: "in \(range.lowerBound)...\(range.upperBound)")
                : .invalidValue(name, text, expected: "a whole number in \(range.lowerBound)...\(range.upperBound)")
        }
        guard range.contains(value) else {
            throw .outOfRange(name, text, range: "in \(range.lowerBound)...\(range.upperBound)")
        }
        return value
    }

    static func isDigits(_ text: String) -> Bool {
        let digits = text.hasPrefix("-") || text.hasPrefix("+") ? text.dropFirst() : Substring(text)
        return !digits.isEmpty && digits.allSatisfy { $0.isASCII && $0.isNumber }
    }
}
