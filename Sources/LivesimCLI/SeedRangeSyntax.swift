/// The one seed range syntax: `A..<B`, `A..B` and `A-B` (B excluded, as in Swift's `..<`
/// and Rust's `..`; the last two need no quoting in a shell), `A...B` (B included), or `N`
/// (`0..<N`). A range holds 1 to ``maximumCount`` seeds: an empty one is refused, because a
/// run of zero seeds would "pass" without testing anything.
enum SeedRangeSyntax {
    /// A hundred million seeds is days of work; more is almost certainly a typo.
    static let maximumCount: UInt64 = 100_000_000
    static let example = "a seed range such as 0..<300, 0..300, 0-300, 0...299 or 300"

    static func parse(_ text: String, for name: String) throws(ArgumentError) -> Range<UInt64> {
        guard let (low, high) = bounds(text) else { throw .invalidValue(name, text, expected: example) }
        if let low, let high, low >= high {
            throw .outOfRange(name, text, range: "a range that holds at least one seed, e.g. \(low)..\(low &+ 1)")
        }
        guard let low, let high, high - low <= maximumCount else {
            throw .outOfRange(name, text, range: "a range of 1...\(maximumCount) seeds within 0...\(UInt64.max)")
        }
        return low..<high
    }

    /// The bounds as a half-open range; nil: not the syntax; a nil bound: a number beyond 64 bits.
    private static func bounds(_ text: String) -> (UInt64?, UInt64?)? {
        func number(_ part: Substring) -> UInt64?? {
            guard !part.isEmpty, part.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            return .some(UInt64(part))
        }
        if let count = number(Substring(text)) { return (0, count) }
        for (separator, inclusive) in [("..<", false), ("...", true), ("..", false), ("-", false)] {
            guard let split = text.range(of: separator) else { continue }
            guard let low = number(text[..<split.lowerBound]), let high = number(text[split.upperBound...]) else {
                return nil
            }
            guard inclusive else { return (low, high) }
            // A...B holds B: B + 1 as the end, unless B is the largest seed.
            return (low, high.flatMap { $0 == .max ? nil : $0 + 1 })
        }
        return nil
    }
}
