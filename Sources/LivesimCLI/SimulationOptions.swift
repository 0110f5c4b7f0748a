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

    /// `--rule NAME`, or `--invariant NAME` by its former name: one of the rules the simulator
    /// judges. Both are read so a script written before the catalogue had one word still runs;
    /// giving both is refused, as they could disagree.
    mutating func rule() throws(ArgumentError) -> Rule? {
        let names = Rule.invariants.map(\.name)
        let rule = try choice("--rule", from: names)
        let former = try choice("--invariant", from: names)
        if rule != nil, former != nil { throw .conflict("give --rule or its former name --invariant, not both") }
        return (rule ?? former).flatMap(Rule.invariant(named:))
    }
}

/// The usage lines of the shared options, so every command words (and ranges) them alike.
enum SimulationUsage {
    static let variants = LogicVariant.all.map(\.name).joined(separator: ", ")
    static let duration = "virtual time per run, 1ms to 1000h (e.g. 90s, 10m, 1.5h)"
}
