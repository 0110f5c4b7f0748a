public import Testing

/// The one line that re-runs exactly one failing seed of a test.
///
/// ```swift
/// ReplayCommand(seed: 37, testName: "ChatTests/showsEveryMessageOnce").description
/// // LIVESIM_SEED=37 swift test --filter 'ChatTests/showsEveryMessageOnce'
/// ```
public struct ReplayCommand: Hashable, Sendable, CustomStringConvertible {
    public var seed: UInt64
    /// `Suite/function` (without the parameter list, so it works as a `--filter` pattern).
    public var testName: String?

    public init(seed: UInt64, testName: String?) {
        self.seed = seed
        self.testName = testName
    }

    /// The command for `seed` in the test that is running now (if any).
    public init(seed: UInt64, test: Test? = Test.current) {
        self.init(seed: seed, testName: test.map(Self.filter(for:)))
    }

    /// `Suite/function` from a test's identity: the parts of its name without parameters.
    static func filter(for test: Test) -> String {
        test.id.nameComponents.map { component in
            if let parenthesis = component.firstIndex(of: "(") { String(component[..<parenthesis]) } else { component }
        }.joined(separator: "/")
    }

    public var description: String {
        var line = "\(Seeds.environmentVariable)=\(seed) swift test"
        if let testName { line += " --filter '\(testName)'" }
        return line
    }
}
