/// Xoshiro256** (Blackman, Vigna 2018): the simulator's seeded random stream.
///
/// ```swift
/// var random = Xoshiro256StarStar(seed: 2026)
/// let delay = BackoffPolicy.fullJitter().delay(afterFailures: 3, previous: nil, using: &random)
/// ```
///
/// Fast, 256 bits of state, passes BigCrush; the state is expanded from a 64-bit seed
/// by ``SplitMix64`` as its authors recommend. Value semantics make a snapshot of a
/// generator a plain copy, which the shrinker and the model checker rely on.
public struct Xoshiro256StarStar: RandomSource, RandomNumberGenerator, Hashable, Sendable {
    private var s0: UInt64, s1: UInt64, s2: UInt64, s3: UInt64

    /// A generator whose state is four SplitMix64 outputs of `seed`.
    public init(seed: UInt64) {
        var expander = SplitMix64(seed: seed)
        s0 = expander.nextWord()
        s1 = expander.nextWord()
        s2 = expander.nextWord()
        s3 = expander.nextWord()
    }

    /// A generator with the given raw state (not all zero), for known-answer tests.
    public init(state: (UInt64, UInt64, UInt64, UInt64)) {
        precondition(state != (0, 0, 0, 0), "xoshiro256** state must not be all zero")
        (s0, s1, s2, s3) = state
    }

    public mutating func nextWord() -> UInt64 {
        let result = (s1 &* 5).rotatedLeft(by: 7) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = s3.rotatedLeft(by: 45)
        return result
    }

    public mutating func next() -> UInt64 { nextWord() }
}

extension UInt64 {
    @inline(__always)
    func rotatedLeft(by amount: UInt64) -> UInt64 {
        (self << amount) | (self >> (64 - amount))
    }
}
