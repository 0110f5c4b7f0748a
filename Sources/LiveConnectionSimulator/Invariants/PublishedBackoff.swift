import LiveConnection

/// Each backoff policy's delay as its documentation publishes it, written out again from
/// the formulas in docs/backoff.md and not by calling the policy: a judge that called
/// `BackoffPolicy.distribution` would change with a wrong formula and never see it.
///
/// ```swift
/// let spec = PublishedBackoff(.fullJitter(base: .seconds(1), cap: .seconds(30)))
/// spec.envelope(afterFailures: 3)   // 0 s … 4 s, mean 2 s: U(0, min(cap, base·2^(n−1)))
/// ```
///
/// The configuration only picks which formula applies (its kind and parameters). Every
/// published delay is uniform on its range (or constant), except decorrelated jitter,
/// whose uniform draw is clamped at the cap.
struct PublishedBackoff {
    /// The range of the next delay and its mean, in seconds.
    struct Range {
        var low: Double
        var high: Double
        var mean: Double
    }

    let kind: BackoffPolicy.Kind

    init(_ policy: BackoffPolicy) { kind = policy.kind }

    /// The delay after `n` failures since the connection last proved itself. For
    /// decorrelated jitter, whose range grows from the previous delay, the envelope holds
    /// whatever the previous delay was: the range as wide as any previous delay makes it,
    /// and the smallest mean any previous delay gives (previous = base).
    func envelope(afterFailures n: Int) -> Range {
        switch kind {
        case .table(let entries):
            // "The n-th entry; the last one repeats."
            let value = entries.isEmpty ? 0 : entries[min(n, entries.count - 1)].seconds
            return Range(low: value, high: value, mean: value)
        case _ where n == 0:
            // "After 0 failures every policy waits 0."
            return Range(low: 0, high: 0, mean: 0)
        case .fullJitter(let base, let cap):
            // U(0, c_n), c_n = min(cap, base·2^(n−1)).
            let c = Self.doubling(base.seconds, cap: cap.seconds, n: n)
            return Range(low: 0, high: c, mean: c / 2)
        case .equalJitter(let base, let cap):
            // c_n/2 + U(0, c_n/2).
            let c = Self.doubling(base.seconds, cap: cap.seconds, n: n)
            return Range(low: c / 2, high: c, mean: 3 * c / 4)
        case .exponential(let base, let cap):
            // c_n exactly.
            let c = Self.doubling(base.seconds, cap: cap.seconds, n: n)
            return Range(low: c, high: c, mean: c)
        case .proportionalJitter(let initial, let multiplier, let jitter, let maximum):
            // U(c_n(1−r), c_n(1+r)), c_n = min(maximum, initial·multiplier^(n−1)).
            var c = initial.seconds
            for _ in 1..<n where c < maximum.seconds { c *= multiplier }
            c = min(c, maximum.seconds)
            return Range(low: c * (1 - jitter), high: c * (1 + jitter), mean: c)
        case .decorrelatedJitter(let base, let cap):
            // min(cap, U(base, 3·previous)), previous starting at base.
            let b = base.seconds, limit = max(b, cap.seconds)
            let top = 3 * b
            // The part of U(b, 3b) above the cap is drawn as the cap.
            let mean = top <= limit ? (b + top) / 2 : ((limit - b) * (b + limit) / 2 + (top - limit) * limit) / (top - b)
            return Range(low: b, high: limit, mean: mean)
        }
    }

    /// min(cap, base·2^(n−1)) in seconds (doubling stops at the cap, so it never overflows).
    private static func doubling(_ base: Double, cap: Double, n: Int) -> Double {
        var value = base
        var step = 1
        while step < n, value < cap {
            value *= 2
            step += 1
        }
        return min(value, cap)
    }
}
