import LiveConnectionSimulator

/// The options the simulation commands (explore, replay, shrink, check, schedules) share,
/// read the same way and with the same ranges everywhere.
extension Arguments {
    /// Virtual time per generated run: a run's schedule grows with it, so it is bounded.
    static let runDurations: ClosedRange<Duration> = .milliseconds(1)...(.seconds(1000 * 3600))
    /// Worker threads: more than this is a typo on any machine we know.
    static let threads: ClosedRange<Int> = 1...256

    /// `--variant NAME`: the manager logic, correct or a planted bug.
    mutating func variant() throws(ArgumentError) -> LogicVariant? {
        try choice("--variant", from: LogicVariant.all.map(\.name)).flatMap(LogicVariant.named)
    }

    /// `--strategy fifo|random|pct`: the executor's job order.
    mutating func strategy() throws(ArgumentError) -> StrategyChoice.Kind? {
        try choice("--strategy", from: StrategyChoice.Kind.allCases.map(\.rawValue)).flatMap(
            StrategyChoice.Kind.init(rawValue:))
    }

    /// `--duration D`: virtual time per generated run.
    mutating func runDuration() throws(ArgumentError) -> Duration? {
        try duration("--duration", in: Self.runDurations)
    }

    /// `--invariant NAME`: one of the simulator's invariants.
    mutating func invariant() throws(ArgumentError) -> Rule? {
        try choice("--invariant", from: Rule.invariants.map(\.name)).flatMap(Rule.invariant(named:))
    }
}

/// The usage lines of the shared options, so every command words (and ranges) them alike.
enum SimulationUsage {
    static let variants = LogicVariant.all.map(\.name).joined(separator: ", ")
    static let duration = "virtual time per run, 1ms to 1000h (e.g. 90s, 10m, 1.5h)"
}
