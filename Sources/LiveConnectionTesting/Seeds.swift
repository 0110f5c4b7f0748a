import Foundation

/// Seeds as `@Test(arguments:)` values, with one environment variable to re-run one seed.
///
/// ```swift
/// @Test(.simulation, arguments: try Seeds.range(0..<100))
/// func chatShowsEveryMessageOnce(seed: UInt64) throws { … }
/// ```
///
/// `swift test --filter` cannot pick one argument of a parameterized test, so a failing
/// seed needs its own way back: run with `LIVESIM_SEED=37` and every `Seeds` list is just
/// `[37]`, whatever range the test asks for (the failure report prints that line).
public enum Seeds {
    /// The environment variable that narrows every seed list to one seed.
    public static let environmentVariable = "LIVESIM_SEED"

    /// The seeds in `range`, or only the one in `LIVESIM_SEED` when it is set.
    ///
    /// - Throws: ``SeedsError/malformedEnvironment(_:)`` when `LIVESIM_SEED` is set but is
    ///   not a seed: silently running the whole range instead would hide the mistake.
    public static func range(_ range: Range<UInt64>) throws(SeedsError) -> [UInt64] {
        try list(Array(range))
    }

    /// The given seeds, or only the one in `LIVESIM_SEED` when it is set.
    public static func list(_ seeds: [UInt64]) throws(SeedsError) -> [UInt64] {
        if let only = try pinned(in: ProcessInfo.processInfo.environment) { return [only] }
        return seeds
    }

    /// The seed `LIVESIM_SEED` pins in `environment`, if any.
    public static func pinned(in environment: [String: String]) throws(SeedsError) -> UInt64? {
        guard let text = environment[environmentVariable] else { return nil }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let seed = UInt64(trimmed) else {
            throw .malformedEnvironment(text)
        }
        return seed
    }
}

/// A seed list that could not be made.
public enum SeedsError: Error, Hashable, Sendable, CustomStringConvertible {
    /// `LIVESIM_SEED` is set to something that is not a seed (0…2⁶⁴−1).
    case malformedEnvironment(String)

    public var description: String {
        switch self {
        case .malformedEnvironment(let text):
            "\(Seeds.environmentVariable)='\(text)' is not a seed (a decimal number in 0…18446744073709551615)"
        }
    }
}
