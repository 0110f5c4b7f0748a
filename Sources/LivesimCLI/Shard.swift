import LiveConnectionSimulator

/// `--shard K/N`: the K-th (from 0, as a Kubernetes Indexed Job's completion index counts)
/// of N contiguous parts of a seed range, which together cover it exactly once.
struct Shard: Equatable, Sendable {
    var index: UInt64
    var count: UInt64
    /// This shard's seeds.
    var seeds: Range<UInt64>

    /// The most shards a range may be cut into.
    static let maximumCount: UInt64 = 100_000

    /// Reads `K/N` for `all`; N may not exceed the number of seeds (no shard is empty).
    init(_ text: String, of all: Range<UInt64>) throws(ArgumentError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = UInt64(parts[0]), let count = UInt64(parts[1]) else {
            throw .invalidValue("--shard", text, expected: "K/N, such as 0/4 (the first of four)")
        }
        guard (1...Self.maximumCount).contains(count) else {
            throw .outOfRange("--shard", text, range: "K/N with N in 1...\(Self.maximumCount)")
        }
        guard count <= UInt64(all.count) else {
            throw .outOfRange("--shard", text, range: "K/N with N at most the \(all.count) seeds of --seeds")
        }
        guard index < count else { throw .outOfRange("--shard", text, range: "K/N with K in 0...\(count - 1)") }
        self.index = index
        self.count = count
        seeds = Explorer.shard(index, of: count, seeds: all)
    }
}
