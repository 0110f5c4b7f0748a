/// A stream of 64-bit random words, with the project's own stable mapping to ranges.
///
/// ```swift
/// var random = Xoshiro256StarStar(seed: 42)
/// let roll = random.uniform(below: 6)            // 0...5, same on every platform
/// let jitter = random.duration(upTo: .seconds(2))  // U[0, 2 s] at nanosecond grain
/// ```
///
/// Why not `Int.random(in:using:)`: the standard library does not promise to keep the
/// way it maps generator output to a range, so a recorded seed could replay differently
/// on the next toolchain. Every mapping here is written out and covered by known-answer
/// tests, so a seed means the same run forever.
public protocol RandomSource {
    /// The next 64 uniformly distributed bits.
    mutating func nextWord() -> UInt64
}

extension RandomSource {
    /// A uniform integer in `0..<bound` by Lemire's multiply-shift with rejection.
    ///
    /// Unbiased: the rejection step removes the `2^64 mod bound` low products that
    /// would otherwise make small results slightly more likely.
    public mutating func uniform(below bound: UInt64) -> UInt64 {
        precondition(bound > 0, "uniform(below:) needs a positive bound")
        var product = nextWord().multipliedFullWidth(by: bound)
        if product.low < bound {
            let threshold = (0 &- bound) % bound
            while product.low < threshold {
                product = nextWord().multipliedFullWidth(by: bound)
            }
        }
        return product.high
    }

    /// A uniform integer in the closed range, by ``uniform(below:)``.
    public mutating func uniform(in range: ClosedRange<Int64>) -> Int64 {
        let width = UInt64(bitPattern: range.upperBound &- range.lowerBound)
        if width == .max { return Int64(bitPattern: nextWord()) }
        return range.lowerBound &+ Int64(bitPattern: uniform(below: width + 1))
    }

    /// A uniform double in `[0, 1)` with 53 random bits: `Double(word >> 11) * 2^-53`.
    public mutating func unitDouble() -> Double {
        Double(nextWord() >> 11) * 0x1p-53
    }

    /// A uniform duration in `[lower, upper]` at nanosecond resolution.
    public mutating func duration(in range: ClosedRange<Duration>) -> Duration {
        let low = range.lowerBound.nanoseconds
        let high = range.upperBound.nanoseconds
        return .nanoseconds(uniform(in: low...high))
    }

    /// A uniform duration in `[0, upper]` at nanosecond resolution.
    public mutating func duration(upTo upper: Duration) -> Duration {
        duration(in: .zero...upper)
    }

    /// A Bernoulli trial: `true` with the given probability.
    public mutating func chance(_ probability: Double) -> Bool {
        unitDouble() < probability
    }
}

extension Duration {
    /// The duration in whole nanoseconds, saturating at `Int64.max`.
    ///
    /// Virtual time and the random mappings work in integer nanoseconds so that
    /// arithmetic is exact and a trace prints the same on every platform.
    package var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        return scaled &+ attoseconds / 1_000_000_000
    }
}
