import LiveConnection

extension Trace {
    /// The trace of a scenario: everything a ``SimulationRun`` needs to run it again.
    ///
    /// ```swift
    /// let scenario = ScenarioGenerator().scenario(seed: 12)
    /// let trace = Trace(scenario: scenario, generator: ScenarioGenerator.id, variant: .correct)
    /// try trace.scenario() == scenario   // except the swarm description, which is not replayed
    /// ```
    ///
    /// The scenario's ``FaultMix`` describes how the schedule was drawn; only the schedule
    /// runs, so the trace keeps the schedule and not the mix.
    public init(
        scenario: Scenario, generator: GeneratorID, variant: LogicVariant = .correct,
        expectation: Expectation? = nil, observed: [ObservedEvent] = []
    ) {
        self.init(
            seed: scenario.seed, generator: generator, strategy: TraceStrategy(scenario.strategy),
            configuration: scenario.configuration, duration: scenario.duration, managerSeed: scenario.managerSeed,
            managerWords: scenario.managerWords,
            logCapacity: scenario.logCapacity, feedTopic: scenario.feedTopic,
            variant: variant == .correct ? nil : variant.name, expectation: expectation,
            schedule: scenario.schedule, observed: observed)
    }

    /// The scenario this trace describes, ready for ``SimulationRun``.
    ///
    /// - Throws: ``TraceReplayError`` when the trace asks for something this build's
    ///   simulator cannot run (an unknown variant, a PCT step count it does not take).
    public func scenario() throws(TraceReplayError) -> Scenario {
        let strategy: StrategyChoice
        switch self.strategy {
        case .fifo: strategy = .fifo
        case .random(let seed): strategy = .random(seed: seed)
        case .pct(let seed, let depth, let steps):
            guard steps == PCTScheduling.defaultExpectedSteps else {
                throw .unsupportedStrategy(
                    "pct with steps=\(steps) (this build runs steps=\(PCTScheduling.defaultExpectedSteps))")
            }
            strategy = .pct(seed: seed, depth: depth)
        }
        return Scenario(
            seed: seed, configuration: configuration, strategy: strategy, duration: duration,
            faults: FaultMix(rates: []), schedule: schedule, managerSeed: managerSeed, managerWords: managerWords,
            logCapacity: logCapacity, feedTopic: feedTopic)
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

extension TraceStrategy {
    /// The trace spelling of a scenario's strategy.
    public init(_ choice: StrategyChoice) {
        switch choice {
        case .fifo: self = .fifo
        case .random(let seed): self = .random(seed: seed)
        case .pct(let seed, let depth):
            self = .pct(seed: seed, depth: depth, expectedSteps: PCTScheduling.defaultExpectedSteps)
        }
    }
}

/// A well-formed trace this build cannot run.
public enum TraceReplayError: Error, Hashable, Sendable, CustomStringConvertible {
    case unknownVariant(String, known: [String])
    case unsupportedStrategy(String)

    public var description: String {
        switch self {
        case .unknownVariant(let name, let known):
            "unknown variant '\(name)' (known: \(known.joined(separator: ", ")))"
        case .unsupportedStrategy(let detail): "unsupported strategy: \(detail)"
        }
    }
}
