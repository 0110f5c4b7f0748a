public import LiveConnection

/// A random source that answers a fixed list of words first, then continues from another.
///
/// ```swift
/// var random = ScriptedWords([1, .max], then: Xoshiro256StarStar(seed: 7))
/// random.nextWord()   // 1
/// random.nextWord()   // UInt64.max
/// random.nextWord()   // Xoshiro's first word for seed 7
/// ```
///
/// This is how a model checker's choice of backoff draws reaches a simulated manager: the
/// checker picks words that land on a policy's boundaries (see `BoundaryRandom`), and a
/// trace's `manager-words` header hands them to the manager's own random source, so the
/// real shell draws the very delays the counterexample took.
public struct ScriptedWords<Rest: RandomSource & Sendable>: RandomSource, Sendable {
    private let words: [UInt64]
    private var next = 0
    private var rest: Rest

    public init(_ words: [UInt64], then rest: Rest) {
        self.words = words
        self.rest = rest
    }

    public mutating func nextWord() -> UInt64 {
        guard next < words.count else { return rest.nextWord() }
        defer { next += 1 }
        return words[next]
    }
}
