public import LiveConnection

/// A scripted `RandomSource` that returns one chosen word, so a backoff draw lands on
/// a boundary of its range: the checker branches over `allCases` instead of
/// sampling.
///
/// ```swift
/// var random = BoundaryRandom(.highest)
/// random.duration(in: .zero ... .seconds(4))   // 4 s exactly
/// random.draws                                 // 1
/// ```
///
/// The words are chosen for Lemire's multiply-shift in `uniform(below:)`,
/// which maps a word w to ⌊w·b / 2⁶⁴⌋ and *rejects* w when the low half of w·b is below
/// 2⁶⁴ mod b. Word 0 gives low half 0, which is rejected for every bound b that is not a
/// power of two: a source that always answers 0 would spin forever. So:
/// - ``Draw/lowest`` is word 1: w·b = b, high half 0, low half b ≥ 2⁶⁴ mod b: accepted.
/// - ``Draw/highest`` is `UInt64.max`: high half b − 1, low half 2⁶⁴ − b ≥ b for b ≤ 2⁶³.
/// - ``Draw/middle`` is 2⁶³ + 1: high half ⌊b/2⌋, low half 2⁶³ + b or b (never rejected),
///   strictly inside the range whenever the range has at least three values.
/// Each is verified by a test; a rejected word (asked for again and again)
/// stops with a precondition failure rather than looping.
public struct BoundaryRandom: RandomSource {
    /// Which end of a range to land on.
    public enum Draw: UInt8, CaseIterable, Sendable, CustomStringConvertible {
        case lowest, middle, highest

        /// The word that lands there.
        public var word: UInt64 {
            switch self {
            case .lowest: 1
            case .middle: (1 << 63) + 1
            case .highest: .max
            }
        }

        public var description: String {
            switch self {
            case .lowest: "lowest"
            case .middle: "middle"
            case .highest: "highest"
            }
        }
    }

    /// The draw every word request answers.
    public let draw: Draw
    /// How many words were asked for (0: the step drew nothing, so the draw did not matter).
    public private(set) var draws = 0

    public init(_ draw: Draw) { self.draw = draw }

    public mutating func nextWord() -> UInt64 {
        draws += 1
        precondition(
            draws <= 16, "a scripted \(draw) word was asked for \(draws) times: the range mapping keeps rejecting it")
        return draw.word
    }
}
