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

    /// The given seeds, or only the one in `LIVESIM_SEED` when it is set, or only the
    /// seed of the trace `LIVESIM_TRACE` names (``PinnedTrace``).
    public static func list(_ seeds: [UInt64]) throws(SeedsError) -> [UInt64] {
        let only = try pinned(in: ProcessInfo.processInfo.environment)
        if let trace = try PinnedTrace.current.get() {
            let seed = trace.trace.scenario.seed
            if let only, only != seed { throw .conflictingSeeds(seed: only, traceSeed: seed) }
            return [seed]
        }
        if let only { return [only] }
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
    /// `LIVESIM_TRACE` names a file that is not a readable trace (the path, why).
    case unreadableTrace(String, String)
    /// `LIVESIM_TRACE` names a trace no test produced (no `test:` line): `livesim replay` runs those.
    case notATestTrace(String)
    /// `LIVESIM_SEED` and `LIVESIM_TRACE` name different seeds.
    case conflictingSeeds(seed: UInt64, traceSeed: UInt64)

    public var description: String {
        switch self {
        case .malformedEnvironment(let text):
            "\(Seeds.environmentVariable)='\(text)' is not a seed (a decimal number in 0…18446744073709551615)"
        case .unreadableTrace(let path, let reason):
            "\(PinnedTrace.environmentVariable)='\(path)' is not a trace this kit can read: \(reason)"
        case .notATestTrace(let path):
            "\(PinnedTrace.environmentVariable)='\(path)' was not produced by a test (no 'test:' line): "
                + "replay it with `livesim replay \(path)` (a test's trace from before traces named their test "
                + "has the test's name as its generator: re-run its seed with \(Seeds.environmentVariable))"
        case .conflictingSeeds(let seed, let traceSeed):
            "\(Seeds.environmentVariable)=\(seed) but the trace in \(PinnedTrace.environmentVariable) is of seed \(traceSeed): "
                + "set one of them"
        }
    }
}
