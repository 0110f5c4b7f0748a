public import LiveConnection

/// The logic a run puts in the manager: the real `ConnectionMachine`, or one of the
/// deliberately broken wrappers that prove the invariants catch what they claim.
///
/// ```swift
/// let broken = LogicVariant.named("skips-resubscribe")!
/// let result = SimulationRun(scenario, variant: broken).run()
/// #expect(result.violations.contains { $0.rule == .resubscribeBeforeOpen })
/// ```
///
/// Broken variants rewrite the machine's inputs or effects from outside; the machine that
/// ships has no mutation switch (see `BrokenVariants.swift`).
public struct LogicVariant: Hashable, Sendable, CustomStringConvertible {
    /// The name used by `livesim explore --variant NAME` and in replay lines.
    public let name: String
    /// What is wrong with it (or "the shipped machine").
    public let summary: String
    /// The simulator invariant it must be caught by (nil for the correct machine).
    public let breaks: Rule?
    /// The broken wrapper, nil for the shipped machine.
    let wrapper: (any MachineWrapper.Type)?

    package init(name: String, summary: String, breaks: Rule?, wrapper: (any MachineWrapper.Type)?) {
        self.name = name
        self.summary = summary
        self.breaks = breaks
        self.wrapper = wrapper
    }

    /// The logic for a manager with this configuration.
    public func logic(for configuration: ConnectionConfiguration) -> any ConnectionLogic {
        let machine = ConnectionMachine(configuration: configuration)
        return wrapper.map { $0.init(base: machine) } ?? machine
    }

    /// One input through this variant around `machine`: the same code a simulated
    /// manager runs, for a caller that owns the machine's value (the model checker).
    package func step(_ input: Input, machine: inout ConnectionMachine, using random: inout some RandomSource)
        -> [Effect]
    {
        guard let wrapper else { return machine.handle(input, using: &random) }
        return wrapper.step(input, machine: &machine, using: &random)
    }

    public var description: String { name }

    public static func == (lhs: LogicVariant, rhs: LogicVariant) -> Bool { lhs.name == rhs.name }
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }

    /// The shipped machine.
    public static let correct = LogicVariant(
        name: "correct", summary: "the shipped ConnectionMachine", breaks: nil, wrapper: nil)

    /// Every variant: the correct one first, then the broken ones (at least one per invariant).
    public static let all: [LogicVariant] = [.correct] + brokenVariants

    /// The variant with this name.
    public static func named(_ name: String) -> LogicVariant? { all.first { $0.name == name } }
}
