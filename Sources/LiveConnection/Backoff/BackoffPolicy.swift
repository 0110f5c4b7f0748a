/// How long to wait before the next connection attempt, after `n` consecutive failures.
///
/// ```swift
/// var random = Xoshiro256StarStar(seed: 1)
/// let policy = BackoffPolicy.fullJitter(base: .seconds(1), cap: .seconds(30))
/// policy.delay(afterFailures: 3, previous: nil, using: &random)  // U[0, 4 s]
/// policy.distribution(afterFailures: 3, previous: nil)           // .uniform(0 s ... 4 s)
/// ```
///
/// After 0 failures (the first attempt, or coming back to the foreground) every policy
/// waits 0. Each policy states the exact distribution of its next delay through
/// ``distribution(afterFailures:previous:)``, which is what the statistics kit verifies
/// the draws against: a policy and its claim cannot drift apart unnoticed.
///
/// All arithmetic is in integer nanoseconds or IEEE doubles without `pow`, and draws go
/// through ``RandomSource``'s own mappings, so a seed gives the same delays everywhere.
public struct BackoffPolicy: Hashable, Sendable, CustomStringConvertible {
    public enum Kind: Hashable, Sendable {
        /// U(0, c_n) with c_n = min(cap, base·2^(n−1)). AWS's recommendation.
        case fullJitter(base: Duration, cap: Duration)
        /// c_n/2 + U(0, c_n/2): never less than half the ceiling.
        case equalJitter(base: Duration, cap: Duration)
        /// min(cap, U(base, 3·previous)), previous starting at base. Memory of the last delay.
        case decorrelatedJitter(base: Duration, cap: Duration)
        /// U(c_n(1−r), c_n(1+r)) with c_n = min(maximum, initial·multiplier^(n−1)) (gRPC).
        case proportionalJitter(initial: Duration, multiplier: Double, jitter: Double, maximum: Duration)
        /// c_n exactly: no jitter (herds stay synchronised; kept as the baseline to beat).
        case exponential(base: Duration, cap: Duration)
        /// The n-th entry (the last one repeats); entry 0 is the delay after 0 failures.
        case table([Duration])
    }

    public var kind: Kind

    public init(_ kind: Kind) { self.kind = kind }

    /// Full jitter, the default: base 1 s, cap 30 s.
    public static func fullJitter(base: Duration = .seconds(1), cap: Duration = .seconds(30)) -> Self {
        Self(.fullJitter(base: base, cap: cap))
    }
    public static func equalJitter(base: Duration = .seconds(1), cap: Duration = .seconds(30)) -> Self {
        Self(.equalJitter(base: base, cap: cap))
    }
    public static func decorrelatedJitter(base: Duration = .seconds(1), cap: Duration = .seconds(30)) -> Self {
        Self(.decorrelatedJitter(base: base, cap: cap))
    }
    /// gRPC's connection backoff: 1 s, ×1.6, ±20 %, at most 120 s.
    public static func proportionalJitter(
        initial: Duration = .seconds(1), multiplier: Double = 1.6, jitter: Double = 0.2,
        maximum: Duration = .seconds(120)
    ) -> Self {
        Self(.proportionalJitter(initial: initial, multiplier: multiplier, jitter: jitter, maximum: maximum))
    }
    public static func exponential(base: Duration = .seconds(1), cap: Duration = .seconds(30)) -> Self {
        Self(.exponential(base: base, cap: cap))
    }
    /// A fixed table; the default is 0, 1, 2, 4, 8, 16, 30 s, then 30 s forever.
    public static func table(_ delays: [Duration] = [0, 1, 2, 4, 8, 16, 30].map { .seconds($0) }) -> Self {
        precondition(!delays.isEmpty, "a backoff table needs at least one entry")
        return Self(.table(delays))
    }

    /// The exact distribution of the delay after `failures` consecutive failures.
    ///
    /// `previous` is the last delay drawn (only decorrelated jitter remembers it).
    public func distribution(afterFailures failures: Int, previous: Duration?) -> DelayDistribution {
        precondition(failures >= 0, "failures must not be negative")
        if case .table(let delays) = kind {
            return .constant(delays[min(failures, delays.count - 1)])
        }
        if failures == 0 { return .constant(.zero) }
        switch kind {
        case .fullJitter(let base, let cap):
            return .uniform(.zero...Self.ceiling(base: base, cap: cap, failures: failures))
        case .equalJitter(let base, let cap):
            let ceiling = Self.ceiling(base: base, cap: cap, failures: failures)
            let half = Duration.nanoseconds(ceiling.nanoseconds / 2)
            return .uniform(half...ceiling)
        case .decorrelatedJitter(let base, let cap):
            let last = max(previous ?? base, base)
            let upper = Duration.nanoseconds(Self.saturatingMultiply(last.nanoseconds, 3))
            return .clampedUniform(base...max(base, upper), cap: cap)
        case .proportionalJitter(let initial, let multiplier, let jitter, let maximum):
            var ceiling = Double(initial.nanoseconds)
            let limit = Double(maximum.nanoseconds)
            for _ in 1..<failures where ceiling < limit { ceiling *= multiplier }
            ceiling = min(ceiling, limit)
            let low = Int64(ceiling * (1 - jitter))
            let high = Int64(ceiling * (1 + jitter))
            return .uniform(.nanoseconds(low)...Duration.nanoseconds(high))
        case .exponential(let base, let cap):
            return .constant(Self.ceiling(base: base, cap: cap, failures: failures))
        case .table:
            preconditionFailure("handled above")
        }
    }

    /// Draws the delay after `failures` consecutive failures.
    public func delay(
        afterFailures failures: Int, previous: Duration?, using random: inout some RandomSource
    ) -> Duration {
        distribution(afterFailures: failures, previous: previous).draw(using: &random)
    }

    /// The largest delay this policy can ever produce (the statistics kit and the
    /// liveness invariant use it as the bound on a wait).
    public var maximumDelay: Duration {
        switch kind {
        case .fullJitter(_, let cap), .equalJitter(_, let cap), .exponential(_, let cap):
            cap
        case .decorrelatedJitter(let base, let cap):
            max(base, cap)
        case .proportionalJitter(_, _, let jitter, let maximum):
            .nanoseconds(Int64(Double(maximum.nanoseconds) * (1 + jitter)))
        case .table(let delays):
            delays.max() ?? .zero
        }
    }

    /// min(cap, base·2^(failures−1)), saturating instead of overflowing.
    static func ceiling(base: Duration, cap: Duration, failures: Int) -> Duration {
        var value = base.nanoseconds
        let limit = cap.nanoseconds
        var step = 1
        while step < failures && value < limit {
            value = saturatingMultiply(value, 2)
            step += 1
        }
        return .nanoseconds(min(value, limit))
    }

    static func saturatingMultiply(_ value: Int64, _ factor: Int64) -> Int64 {
        let (product, overflow) = value.multipliedReportingOverflow(by: factor)
        return overflow ? .max : product
    }

    public var description: String {
        switch kind {
        case .fullJitter(let base, let cap): "full-jitter(base \(base), cap \(cap))"
        case .equalJitter(let base, let cap): "equal-jitter(base \(base), cap \(cap))"
        case .decorrelatedJitter(let base, let cap): "decorrelated-jitter(base \(base), cap \(cap))"
        case .proportionalJitter(let initial, let multiplier, let jitter, let maximum):
            "proportional-jitter(initial \(initial), ×\(multiplier), ±\(jitter), max \(maximum))"
        case .exponential(let base, let cap): "exponential(base \(base), cap \(cap))"
        case .table(let delays): "table(\(delays.map(\.description).joined(separator: ", ")))"
        }
    }
}
