/// Any standard-library `RandomNumberGenerator` used as a ``RandomSource``.
///
/// ```swift
/// var random = GeneratorRandomSource(SystemRandomNumberGenerator())
/// let manager = ConnectionManager(configuration: .init(), transport: transport, random: random)
/// ```
///
/// Production uses the system generator this way; the mapping to ranges is still ours.
public struct GeneratorRandomSource<Generator: RandomNumberGenerator>: RandomSource {
    public var generator: Generator

    public init(_ generator: Generator) { self.generator = generator }

    public mutating func nextWord() -> UInt64 { generator.next() }
}

extension GeneratorRandomSource: Sendable where Generator: Sendable {}

/// Any ``RandomSource`` used as a standard-library `RandomNumberGenerator`.
///
/// ```swift
/// var generator = SourceRandomNumberGenerator(Xoshiro256StarStar(seed: 1))
/// let shuffled = [1, 2, 3].shuffled(using: &generator) // reproducible on this toolchain only
/// ```
public struct SourceRandomNumberGenerator<Source: RandomSource>: RandomNumberGenerator {
    public var source: Source

    public init(_ source: Source) { self.source = source }

    public mutating func next() -> UInt64 { source.nextWord() }
}

extension SourceRandomNumberGenerator: Sendable where Source: Sendable {}

/// The operating system's generator, for production managers.
public typealias SystemRandomSource = GeneratorRandomSource<SystemRandomNumberGenerator>

extension GeneratorRandomSource where Generator == SystemRandomNumberGenerator {
    /// The system generator as a random source.
    public init() { self.init(SystemRandomNumberGenerator()) }
}

/// Any ``RandomSource`` behind one concrete type, for storage where the source is chosen at run time.
///
/// ```swift
/// var random = AnyRandomSource(Xoshiro256StarStar(seed: 1))
/// machine.handle(input, using: &random)
/// ```
public struct AnyRandomSource: RandomSource {
    public var base: any RandomSource

    public init(_ base: any RandomSource) { self.base = base }

    public mutating func nextWord() -> UInt64 { base.nextWord() }
}
