import Foundation
public import LiveConnection

/// Which fault kinds a run injects and how often: the swarm-testing half of a scenario.
///
/// ```swift
/// var random = SplitMix64(seed: 7)
/// let mix = FaultMix.swarm(using: &random)   // about half the kinds on, each at its own rate
/// mix.meanInterval(of: .reset)               // nil when resets are off for this seed
/// ```
///
/// Swarm testing (Groce et al., ISSTA 2012; TigerBeetle's VOPR does the same) turns
/// whole kinds off at random: a run with every fault on at once rarely lets a connection
/// stay open long enough for a stale callback to matter, while a run with three kinds on
/// explores their interactions deeply. Rates are log-uniform between a few seconds and
/// ten minutes, so some seeds are storms and others are calm.
public struct FaultMix: Hashable, Sendable {
    /// The mean time between two faults of a kind that is on.
    public struct Rate: Hashable, Sendable {
        public var kind: FaultKind
        public var meanInterval: Duration

        public init(kind: FaultKind, meanInterval: Duration) {
            self.kind = kind
            self.meanInterval = meanInterval
        }
    }

    /// The kinds that are on, in ``FaultKind`` order.
    public var rates: [Rate]

    public init(rates: [Rate]) {
        self.rates = rates.sorted { $0.kind < $1.kind }
    }

    /// Every kind on, each at `meanInterval`.
    public static func all(every meanInterval: Duration) -> FaultMix {
        FaultMix(rates: FaultKind.allCases.map { Rate(kind: $0, meanInterval: meanInterval) })
    }

    /// A random mix: each kind on with probability one half, at a log-uniform rate in
    /// [`fastest`, `slowest`]; broadcasts always on.
    public static func swarm(
        using random: inout some RandomSource, fastest: Duration = .seconds(5), slowest: Duration = .seconds(600)
    ) -> FaultMix {
        var rates: [Rate] = []
        for kind in FaultKind.allCases {
            let on = kind == .broadcast || random.chance(0.5)
            let interval = logUniform(fastest, slowest, using: &random)
            if on { rates.append(Rate(kind: kind, meanInterval: interval)) }
        }
        return FaultMix(rates: rates)
    }

    /// The mean interval of `kind`, or nil when it is off.
    public func meanInterval(of kind: FaultKind) -> Duration? {
        rates.first { $0.kind == kind }?.meanInterval
    }

    /// exp(U(ln a, ln b)), rounded to the millisecond.
    static func logUniform(_ low: Duration, _ high: Duration, using random: inout some RandomSource) -> Duration {
        // Foundation's exp/log: a seed must reproduce on the same build, which they do.
        let a = low.seconds, b = high.seconds
        let value = exp(log(a) + random.unitDouble() * (log(b) - log(a)))
        return .milliseconds(Int64((value * 1000).rounded()))
    }
}
