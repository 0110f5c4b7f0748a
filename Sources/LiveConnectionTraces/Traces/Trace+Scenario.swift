import LiveConnection
public import LiveConnectionRules

extension Trace {
    /// The trace of a run of `variant` (the correct machine writes no `variant:` line).
    ///
    /// ```swift
    /// let scenario = ScenarioGenerator().scenario(seed: 12)
    /// let trace = Trace(scenario: scenario, generator: ScenarioGenerator.traceIdentity, variant: .correct)
    /// trace.scenario.schedule == scenario.schedule   // the swarm description is not kept
    /// ```
    public init(
        scenario: Scenario, generator: GeneratorID, variant: LogicVariant, expectation: Expectation? = nil,
        observed: [ObservedEvent] = []
    ) {
        self.init(
            scenario: scenario, generator: generator, variant: variant == .correct ? nil : variant.name,
            expectation: expectation, observed: observed)
    }

    /// The manager variant the trace names (the correct machine when it names none).
    public func logicVariant() throws(TraceReplayError) -> LogicVariant {
        guard let variant else { return .correct }
        guard let logic = LogicVariant.named(variant) else {
            throw .unknownVariant(variant, known: LogicVariant.all.map(\.name))
        }
        return logic
    }
}

/// A well-formed trace this build cannot run.
public enum TraceReplayError: Error, Hashable, Sendable, CustomStringConvertible {
    case unknownVariant(String, known: [String])

    public var description: String {
        switch self {
        case .unknownVariant(let name, let known):
            "unknown variant '\(name)' (known: \(known.joined(separator: ", ")))"
        }
    }
}
