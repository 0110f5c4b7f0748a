public import LiveConnection

/// Draws a backoff policy of any shipped family, with its parameters, for the swarm.
///
/// ```swift
/// var random = Xoshiro256StarStar(seed: 3)
/// PolicyDraw.policy(using: &random)   // e.g. proportional-jitter initial=350ms multiplier=2.3 …
/// ```
///
/// The family is uniform over `BackoffPolicy.Family.allCases`, so a formula added to the
/// library is explored the day it ships (a test fails while the swarm cannot draw it). The
/// parameters stay where the other rules keep their meaning: bases from 50 ms to 2 s, caps
/// 2 to 256 times the base and at most 60 s, gRPC-style multipliers 1.1 to 3.0 and jitter
/// 5 % to 50 % (in steps that spell exactly in a trace), tables that start at 0 (the first
/// attempt dials at once) and never shrink.
public enum PolicyDraw {
    public static func policy(using random: inout some RandomSource) -> BackoffPolicy {
        let family = BackoffPolicy.Family.allCases[
            Int(random.uniform(below: UInt64(BackoffPolicy.Family.allCases.count)))]
        let base = Duration.milliseconds(random.uniform(in: 50...2_000))
        let cap = min(.seconds(60), base * Int(1 << random.uniform(in: 1...8)))
        switch family {
        case .fullJitter: return .fullJitter(base: base, cap: cap)
        case .equalJitter: return .equalJitter(base: base, cap: cap)
        case .decorrelatedJitter: return .decorrelatedJitter(base: base, cap: cap)
        case .exponential: return .exponential(base: base, cap: cap)
        case .proportionalJitter:
            let multiplier = Double(random.uniform(in: 11...30)) / 10
            let jitter = Double(random.uniform(in: 1...10)) * 5 / 100
            return .proportionalJitter(initial: base, multiplier: multiplier, jitter: jitter, maximum: cap)
        case .table:
            var delays: [Duration] = [.zero]
            for _ in 0..<random.uniform(in: 1...6) {
                delays.append(delays[delays.count - 1] + .milliseconds(random.uniform(in: 0...8_000)))
            }
            return .table(delays)
        }
    }
}
