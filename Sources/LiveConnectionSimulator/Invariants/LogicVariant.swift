public import LiveConnection

/// The logic a run puts in the manager: the real ``ConnectionMachine``, or one of the
/// deliberately broken wrappers that prove the invariants catch what they claim.
///
/// ```swift
/// let broken = LogicVariant.named("skips-resubscribe")!
/// let result = SimulationRun(scenario, variant: broken).run()
/// #expect(result.violations.contains { $0.invariant == .resubscribeBeforeOpen })
/// ```
///
/// Broken variants rewrite the machine's inputs or effects from outside; the machine that
/// ships has no mutation switch (see `BrokenVariants.swift`).
public struct LogicVariant: Hashable, Sendable, CustomStringConvertible {
    /// The name used by `livesim explore --variant NAME` and in replay lines.
    public let name: String
    /// What is wrong with it (or "the shipped machine").
    public let summary: String
    /// The invariant it must be caught by (nil for the correct machine).
    public let breaks: Invariant?
    private let make: @Sendable (ConnectionConfiguration) -> any ConnectionLogic

    init(
        name: String, summary: String, breaks: Invariant?,
        make: @escaping @Sendable (ConnectionConfiguration) -> any ConnectionLogic
    ) {
        self.name = name
        self.summary = summary
        self.breaks = breaks
        self.make = make
    }

    /// The logic for a manager with this configuration.
    public func logic(for configuration: ConnectionConfiguration) -> any ConnectionLogic { make(configuration) }

    public var description: String { name }

    public static func == (lhs: LogicVariant, rhs: LogicVariant) -> Bool { lhs.name == rhs.name }
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }

    /// The shipped machine.
    public static let correct = LogicVariant(name: "correct", summary: "the shipped ConnectionMachine", breaks: nil) {
        ConnectionMachine(configuration: $0)
    }

    /// Every variant: the correct one first, then one broken variant per invariant.
    public static let all: [LogicVariant] = [.correct] + brokenVariants

    /// The variant with this name.
    public static func named(_ name: String) -> LogicVariant? { all.first { $0.name == name } }
}
