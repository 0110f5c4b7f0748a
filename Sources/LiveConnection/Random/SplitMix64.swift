/// SplitMix64 (Steele, Lea, Flood 2014): expands one 64-bit seed into well-mixed words.
///
/// ```swift
/// var expander = SplitMix64(seed: 7)
/// let state = (expander.nextWord(), expander.nextWord())
/// ```
///
/// Used to seed ``Xoshiro256StarStar`` so that nearby seeds (0, 1, 2, …) give
/// unrelated streams; also a fine generator on its own for derived sub-seeds.
public struct SplitMix64: RandomSource, RandomNumberGenerator, Hashable, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func nextWord() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    public mutating func next() -> UInt64 { nextWord() }
}
