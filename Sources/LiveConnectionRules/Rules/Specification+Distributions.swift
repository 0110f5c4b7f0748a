public import LiveConnection

// MARK: Backoff distributions, from the publications

extension Specification {
    /// The exact distribution of the delay the named policy draws after `n` consecutive
    /// failures, as its publication states it.
    ///
    /// ```swift
    /// let spec = Specification.seedDocuments
    /// spec.publishedDelay(.fullJitter(base: .seconds(1), cap: .seconds(30)), afterFailures: 3, previous: nil)
    /// // uniform(0 s ... 4 s)
    /// spec.publishedDelay(.decorrelatedJitter(base: .seconds(1), cap: .seconds(30)), afterFailures: 5,
    ///                     previous: .seconds(20))
    /// // min(30 s, uniform(1 s ... 60 s)): half the draws sit exactly at the cap
    /// ```
    ///
    /// With c_n = min(cap, base·2^(n−1)) (AWS, "Exponential Backoff and Jitter", 2015): full
    /// jitter U(0, c_n); equal jitter c_n/2 + U(0, c_n/2); no jitter exactly c_n;
    /// decorrelated jitter sleep = min(cap, U(base, 3·sleep)), sleep starting at base, so the
    /// draws above the cap pile up at the cap; gRPC's connection backoff U(c_n(1−r), c_n(1+r))
    /// with c_n = min(maximum, initial·multiplier^(n−1)); a table's n-th entry, the last one
    /// repeating. After 0 failures every policy waits 0, except a table, whose entry 0 is
    /// that wait.
    ///
    /// This is what the statistical judges (`livesim stats policies`, the wire fit, and
    /// `backoff-distribution` in `explore`) compare draws with. It is written out again here,
    /// never read from `BackoffPolicy.distribution`: a draw and its oracle computed by one
    /// function agree by construction, and a narrowed range or a lost atom at the cap would
    /// pass. `DelayDistribution` is only the vocabulary the answer is spelled in.
    ///
    /// - Parameters:
    ///   - policy: names the formula and its parameters (never computes the answer).
    ///   - n: consecutive failures before this delay.
    ///   - previous: the delay drawn before this one since the count started again
    ///     (nil: none; decorrelated jitter then grows from base). Other policies ignore it.
    public func publishedDelay(_ policy: BackoffPolicy, afterFailures n: Int, previous: Duration?)
        -> DelayDistribution
    {
        let n = max(0, n)
        if case .table(let entries) = policy.kind {
            return .constant(entries.isEmpty ? .zero : entries[min(n, entries.count - 1)])
        }
        if n == 0 { return .constant(.zero) }
        switch policy.kind {
        case .fullJitter(let base, let cap):
            return .uniform(.zero...Self.doubling(base, cap: cap, failures: n))
        case .equalJitter(let base, let cap):
            let c = Self.doubling(base, cap: cap, failures: n)
            return .uniform(.nanoseconds(c.nanoseconds / 2)...c)
        case .exponential(let base, let cap):
            return .constant(Self.doubling(base, cap: cap, failures: n))
        case .decorrelatedJitter(let base, let cap):
            let sleep = max(previous ?? base, base)
            let (tripled, overflow) = sleep.nanoseconds.multipliedReportingOverflow(by: 3)
            let high: Duration = .nanoseconds(overflow ? Int64.max : tripled)
            return .clampedUniform(base...max(base, high), cap: cap)
        case .proportionalJitter(let initial, let multiplier, let jitter, let maximum):
            let c = Self.proportionalCeiling(
                initial: initial, multiplier: multiplier, maximum: maximum, failures: n)
            return .uniform(.nanoseconds(Int64(c * (1 - jitter)))...Duration.nanoseconds(Int64(c * (1 + jitter))))
        case .table:
            preconditionFailure("handled above")
        }
    }

    /// min(maximum, initial·multiplier^(n−1)) in nanoseconds, as a double (gRPC states it in
    /// floating point): multiplied step by step, stopping once past the maximum.
    static func proportionalCeiling(initial: Duration, multiplier: Double, maximum: Duration, failures n: Int)
        -> Double
    {
        var c = Double(initial.nanoseconds)
        let limit = Double(maximum.nanoseconds)
        var step = 1
        while step < n && c < limit {
            c *= multiplier
            step += 1
        }
        return min(c, limit)
    }
}

extension Specification {
    /// Below this p-value a statistical judge rejects (`backoff-distribution`, the wire
    /// fit): 10,000 explorations, or 10,000 seeds of a correct client, then raise a false
    /// alarm with probability about 1 %.
    public static let falseAlarmAlpha = 1e-6

    /// The atom `delay` could have sat at under `distribution` (a clamped uniform's cap when
    /// the range passes it): its published mass, and whether the delay is there. Nil when the
    /// distribution has no atom a draw can miss.
    public static func atom(of delay: Duration, under distribution: DelayDistribution) -> (mass: Double, hit: Bool)? {
        guard case .clampedUniform(let range, let cap) = distribution else { return nil }
        let low = range.lowerBound.nanoseconds, high = range.upperBound.nanoseconds, c = cap.nanoseconds
        guard high > c, c > low else { return nil }
        return (Double(high - c) / Double(high - low), delay.nanoseconds >= c)
    }

    /// The randomized probability integral transform of `delay` under `distribution`:
    /// F(delay) on a continuous part; at an atom (a clamped uniform's cap) a point drawn
    /// uniformly over the jump by `spread` (a uniform draw in [0, 1) from the judge's own
    /// generator). Exactly U(0, 1) when the delay follows the distribution. Nil for a
    /// constant (a point says nothing about its distribution; the range rule pins it).
    public static func transform(of delay: Duration, under distribution: DelayDistribution, spread: Double)
        -> Double?
    {
        func fraction(_ x: Int64, _ low: Int64, _ high: Int64) -> Double {
            min(1, max(0, Double(x - low) / Double(high - low)))
        }
        let x = delay.nanoseconds
        switch distribution {
        case .constant:
            return nil
        case .uniform(let range):
            let low = range.lowerBound.nanoseconds, high = range.upperBound.nanoseconds
            return high > low ? fraction(x, low, high) : nil
        case .clampedUniform(let range, let cap):
            let low = range.lowerBound.nanoseconds, high = range.upperBound.nanoseconds, c = cap.nanoseconds
            guard high > low, c > low else { return nil }
            if c >= high { return fraction(x, low, high) }
            let below = fraction(c, low, high)
            return x >= c ? below + spread * (1 - below) : fraction(x, low, high)
        }
    }
}
