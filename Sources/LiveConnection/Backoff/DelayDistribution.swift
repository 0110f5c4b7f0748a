/// The exact distribution of one backoff delay, as a ``BackoffPolicy`` states it.
///
/// ```swift
/// let d = DelayDistribution.uniform(.zero ... .seconds(4))
/// d.cdf(.seconds(1))   // 0.25
/// d.bounds             // 0 s ... 4 s
/// ```
///
/// Three shapes cover every built-in policy; ``clampedUniform(_:cap:)`` is the
/// decorrelated-jitter case, where draws above the cap pile up exactly at the cap.
public enum DelayDistribution: Hashable, Sendable, CustomStringConvertible {
    /// Always this value.
    case constant(Duration)
    /// Uniform on the closed range, at nanosecond grain.
    case uniform(ClosedRange<Duration>)
    /// min(cap, U(range)): uniform below the cap, an atom at the cap.
    case clampedUniform(ClosedRange<Duration>, cap: Duration)

    /// The smallest and largest value a draw can take.
    public var bounds: ClosedRange<Duration> {
        switch self {
        case .constant(let value): value...value
        case .uniform(let range): range
        case .clampedUniform(let range, let cap):
            min(range.lowerBound, cap)...min(range.upperBound, cap)
        }
    }

    /// P(delay ≤ x), with x in any unit (nanosecond arithmetic inside).
    public func cdf(_ x: Duration) -> Double {
        switch self {
        case .constant(let value):
            return x >= value ? 1 : 0
        case .uniform(let range):
            return Self.uniformCDF(x, range)
        case .clampedUniform(let range, let cap):
            return x >= cap ? 1 : Self.uniformCDF(x, range)
        }
    }

    /// The probability of drawing exactly the cap (the atom of a clamped uniform).
    public var massAtCap: Double {
        guard case .clampedUniform(let range, let cap) = self else { return 0 }
        return 1 - Self.uniformCDF(cap, range)
    }

    /// The mean, in seconds.
    public var meanSeconds: Double {
        switch self {
        case .constant(let value): return value.seconds
        case .uniform(let range): return (range.lowerBound.seconds + range.upperBound.seconds) / 2
        case .clampedUniform(let range, let cap):
            let low = range.lowerBound.seconds, high = range.upperBound.seconds, c = cap.seconds
            if c >= high { return (low + high) / 2 }
            if c <= low { return c }
            let p = (c - low) / (high - low)
            return p * (low + c) / 2 + (1 - p) * c
        }
    }

    /// Draws one delay through ``RandomSource``'s stable mapping.
    public func draw(using random: inout some RandomSource) -> Duration {
        switch self {
        case .constant(let value): value
        case .uniform(let range): random.duration(in: range)
        case .clampedUniform(let range, let cap): min(cap, random.duration(in: range))
        }
    }

    static func uniformCDF(_ x: Duration, _ range: ClosedRange<Duration>) -> Double {
        let low = range.lowerBound.nanoseconds, high = range.upperBound.nanoseconds
        let value = x.nanoseconds
        if value < low { return 0 }
        if value >= high { return 1 }
        return Double(value - low) / Double(high - low)
    }

    public var description: String {
        switch self {
        case .constant(let value): "constant(\(value))"
        case .uniform(let range): "uniform(\(range.lowerBound) ... \(range.upperBound))"
        case .clampedUniform(let range, let cap): "min(\(cap), uniform(\(range.lowerBound) ... \(range.upperBound)))"
        }
    }
}

extension Duration {
    /// The duration in seconds as a double (for statistics and printing, not for timing).
    package var seconds: Double {
        let (whole, attoseconds) = components
        return Double(whole) + Double(attoseconds) * 1e-18
    }
}
