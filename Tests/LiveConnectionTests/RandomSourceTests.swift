import Testing

@testable import LiveConnection

@Suite("Random sources")
struct RandomSourceTests {
    @Test("SplitMix64 matches the reference output for seed 0")
    func splitMixKnownAnswers() {
        // Reference values of Vigna's splitmix64.c seeded with 0.
        var generator = SplitMix64(seed: 0)
        #expect(generator.nextWord() == 0xE220_A839_7B1D_CDAF)
        #expect(generator.nextWord() == 0x6E78_9E6A_A1B9_65F4)
        #expect(generator.nextWord() == 0x06C4_5D18_8009_454F)
    }

    @Test("Xoshiro256** matches the reference output for state (1, 2, 3, 4)")
    func xoshiroKnownAnswers() {
        // Reference values of Blackman and Vigna's xoshiro256starstar.c.
        var generator = Xoshiro256StarStar(state: (1, 2, 3, 4))
        let words = (0..<6).map { _ in generator.nextWord() }
        #expect(
            words == [
                11520, 0, 1_509_978_240, 1_215_971_899_390_074_240, 1_216_172_134_540_287_360, 607_988_272_756_665_600,
            ])
    }

    @Test("uniform(below:) stays in range and hits every value", arguments: [1, 2, 3, 7, 10, 1000] as [UInt64])
    func uniformBelow(bound: UInt64) {
        var random = Xoshiro256StarStar(seed: bound)
        var seen = Set<UInt64>()
        for _ in 0..<20_000 {
            let value = random.uniform(below: bound)
            #expect(value < bound)
            seen.insert(value)
        }
        #expect(seen.count == Int(bound))
    }

    @Test("Lemire's mapping: the high word of word × bound, rejecting the biased low products")
    func lemireMappingIsStable() {
        struct Words: RandomSource {
            var words: [UInt64]
            mutating func nextWord() -> UInt64 { words.removeFirst() }
        }
        var low = Words(words: [0, (1 << 63) + 1])
        // 0 × 10 has low word 0, below the rejection threshold 2^64 mod 10 = 6: redrawn → 5.
        #expect(low.uniform(below: 10) == 5)
        var high = Words(words: [.max])
        #expect(high.uniform(below: 10) == 9)
        var middle = Words(words: [(1 << 63) + 1])
        #expect(middle.uniform(below: 1000) == 500)
    }

    @Test("unit doubles use the top 53 bits")
    func unitDouble() {
        struct Fixed: RandomSource {
            var word: UInt64
            mutating func nextWord() -> UInt64 { word }
        }
        var zero = Fixed(word: 0)
        var top = Fixed(word: .max)
        var half = Fixed(word: 1 << 63)
        #expect(zero.unitDouble() == 0)
        #expect(top.unitDouble() == 1 - 0x1p-53)
        #expect(half.unitDouble() == 0.5)
    }

    @Test("the same seed gives the same stream; different seeds differ")
    func seeding() {
        var a = Xoshiro256StarStar(seed: 99)
        var b = Xoshiro256StarStar(seed: 99)
        var c = Xoshiro256StarStar(seed: 100)
        let streamA = (0..<8).map { _ in a.nextWord() }
        #expect(streamA == (0..<8).map { _ in b.nextWord() })
        #expect(streamA != (0..<8).map { _ in c.nextWord() })
    }

    @Test("standard-library generators and random sources interoperate both ways")
    func interop() {
        var source = GeneratorRandomSource(Xoshiro256StarStar(seed: 5))
        var reference = Xoshiro256StarStar(seed: 5)
        #expect(source.nextWord() == reference.nextWord())
        var generator = SourceRandomNumberGenerator(Xoshiro256StarStar(seed: 5))
        var again = Xoshiro256StarStar(seed: 5)
        #expect(generator.next() == again.next())
    }

    @Test("durations are drawn at nanosecond grain within the closed range")
    func durations() {
        var random = Xoshiro256StarStar(seed: 3)
        for _ in 0..<1000 {
            let d = random.duration(in: .milliseconds(100)...Duration.milliseconds(200))
            #expect(d >= .milliseconds(100) && d <= .milliseconds(200))
        }
        #expect(Duration.seconds(2).nanoseconds == 2_000_000_000)
        #expect(Duration.milliseconds(-3).nanoseconds == -3_000_000)
    }
}
