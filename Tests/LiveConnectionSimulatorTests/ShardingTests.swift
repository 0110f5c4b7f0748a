import Foundation
import LiveConnectionSimulator
import Testing

/// Exploration beyond one machine: shards of a seed range, each with its report, merged.
@Suite("Sharded exploration")
struct ShardingTests {
    @Test("shards cover the seed range exactly once, in parts that differ by at most one seed")
    func shardsPartitionTheRange() {
        for (seeds, count) in [(0..<10 as Range<UInt64>, 4 as UInt64), (5..<6, 3), (100..<100_000, 7), (0..<3, 3)] {
            let parts = (0..<count).map { Explorer.shard($0, of: count, seeds: seeds) }
            #expect(parts.first?.lowerBound == seeds.lowerBound)
            #expect(parts.last?.upperBound == seeds.upperBound)
            for (a, b) in zip(parts, parts.dropFirst()) { #expect(a.upperBound == b.lowerBound) }
            let sizes = parts.map(\.count)
            #expect(sizes.max()! - sizes.min()! <= 1, "\(sizes)")
        }
    }

    static func report(_ seeds: Range<UInt64>, variant: LogicVariant) -> ExplorationReport {
        let generator = ScenarioGenerator(duration: .seconds(600))
        let summary = Explorer(seeds: seeds, generator: generator, variant: variant, threads: 2).run()
        return ExplorationReport(
            summary, seeds: seeds, duration: .seconds(600), strategy: nil, replay: { "livesim replay --seed \($0)" })
    }

    @Test("four shards merged equal one unsharded run, failures and all")
    func fourShardsEqualOneRun() throws {
        let variant = try #require(LogicVariant.named("ignores-generations"))
        let seeds: Range<UInt64> = 0..<10
        let single = Self.report(seeds, variant: variant)
        #expect(single.results.failureCount > 0, "the variant must fail somewhere for this to compare failures")
        let shards = (0..<4).map { Self.report(Explorer.shard($0, of: 4, seeds: seeds), variant: variant) }
        // Merged in any order, through their JSON files.
        let decoded = try shards.reversed().map { try ExplorationReport(decoding: try $0.encoded()) }
        let merged = try ExplorationReport.merge(decoded)
        #expect(merged.results == single.results)
        #expect(merged.results.seeds == [ExplorationReport.SeedRange(seeds)])
        #expect(merged.shards.count == 4)
    }

    @Test("merging refuses overlapping shards and shards of different explorations")
    func mergeRefusesMismatches() throws {
        let a = Self.report(0..<2, variant: .correct)
        let b = Self.report(1..<3, variant: .correct)
        #expect(throws: ExplorationReport.ReportError.overlap(1)) { try ExplorationReport.merge([a, b]) }
        var other = Self.report(2..<3, variant: .correct)
        other.results.durationMilliseconds = 1_000
        #expect(throws: ExplorationReport.ReportError.self) { try ExplorationReport.merge([a, other]) }
        #expect(throws: ExplorationReport.ReportError.nothingToMerge) { try ExplorationReport.merge([]) }
        #expect(throws: ExplorationReport.ReportError.self) { try ExplorationReport(decoding: Data("{}".utf8)) }
    }
}
