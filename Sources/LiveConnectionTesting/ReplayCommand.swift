import Foundation
public import Testing

/// The one line that re-runs exactly one failing seed of a test, or one trace of it.
///
/// ```swift
/// ReplayCommand(seed: 37, testName: "ChatTests/showsEveryMessageOnce").description
/// // LIVESIM_SEED=37 swift test --filter 'ChatTests/showsEveryMessageOnce'
/// ReplayCommand(seed: 37, tracePath: ".livesim/traces/ChatTests.showsEveryMessageOnce-seed37.trace",
///               testName: "ChatTests/showsEveryMessageOnce").description
/// // LIVESIM_TRACE=.livesim/traces/ChatTests.showsEveryMessageOnce-seed37.trace swift test --filter '…'
/// ```
public struct ReplayCommand: Hashable, Sendable, CustomStringConvertible {
    public var seed: UInt64
    /// A trace of the run (a shrunk one, say) to replay instead of the seed's own run.
    public var tracePath: String?
    /// `Suite/function` (without the parameter list, so it works as a `--filter` pattern).
    public var testName: String?

    public init(seed: UInt64, tracePath: String? = nil, testName: String?) {
        self.seed = seed
        self.tracePath = tracePath
        self.testName = testName
    }

    /// The command for `seed` (or the trace at `tracePath`) in the test that is running now (if any).
    public init(seed: UInt64, tracePath: String? = nil, test: Test? = Test.current) {
        self.init(seed: seed, tracePath: tracePath, testName: test.map(Self.filter(for:)))
    }

    /// `Suite/function` from a test's identity: the parts of its name without parameters.
    static func filter(for test: Test) -> String {
        test.id.nameComponents.map { component in
            if let parenthesis = component.firstIndex(of: "(") { String(component[..<parenthesis]) } else { component }
        }.joined(separator: "/")
    }

    public var description: String {
        var line: String
        if let tracePath {
            line = "\(PinnedTrace.environmentVariable)=\(Self.shellWord(tracePath)) swift test"
        } else {
            line = "\(Seeds.environmentVariable)=\(seed) swift test"
        }
        if let testName { line += " --filter '\(testName)'" }
        return line
    }

    /// `text` as one shell word: bare when it holds only safe characters, else in single quotes.
    static func shellWord(_ text: String) -> String {
        let safe = text.unicodeScalars.allSatisfy { scalar in
            scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                || "._-/+=,:@".unicodeScalars.contains(scalar)
        }
        if safe, !text.isEmpty { return text }
        return "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
