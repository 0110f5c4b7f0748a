import LiveConnectionChecker
import LiveConnectionSimulator

extension Command {
    /// `livesim interleavings` (also `livesim schedules`, its first name): every job order of
    /// a small scenario of the real manager.
    ///
    /// "Interleaving" is the project's word for an order of jobs ("schedule" is a world's
    /// timetable of actions); the old name stays accepted so scripts keep working.
    static let interleavings = Command(
        name: "interleavings",
        summary: "explore the async shell's job orders on a small reconnect scenario",
        usage: """
            usage: livesim interleavings [--preemptions N] [--max-interleavings N] [--pct SEEDS] [--variant NAME]
                   (`livesim schedules` is the same command, by its former name)

            Runs the real ConnectionManager on the simulation executor in a small scenario
            (subscribe, connect, the server closes the first connection after 1 s, reconnect)
            under every interleaving (job order) with at most N preemptions, depth-first over
            the choice points, as loom does. Each interleaving passes when both connections
            were subscribed and the second resumed before its open. Prints how many distinct
            interleavings ran and whether all passed; a failing one is printed as its choice list.

              --preemptions N        bound on preemptions per interleaving, 0 to 10 (default 1; 2 runs tens of thousands)
              --max-interleavings N  stop after N interleavings, 1 to 10000000 (default 5000)
              --max-schedules N      the same, by its former name, 1 to 10000000
              --pct SEEDS            also run PCT (depth 3) for SEEDS seeds, 0 to 1000000 (default 0: off)
              --variant V            the logic in the manager (default correct): \(SimulationUsage.variants)
            """,
        exitCodes: [0: "every interleaving passed", 1: "an interleaving failed, or an error"],
        parse: { arguments throws(ArgumentError) in
            let bound = try arguments.integer("--preemptions", in: 0...10, default: 1)
            let limit = try arguments.integer("--max-interleavings", in: 1...10_000_000)
            let formerLimit = try arguments.integer("--max-schedules", in: 1...10_000_000)
            let pctSeeds = try arguments.integer("--pct", in: 0...1_000_000, default: 0)
            let variant = try arguments.variant() ?? .correct
            try arguments.finish()
            return {
                runInterleavings(
                    bound: bound, limit: limit ?? formerLimit ?? 5_000, pctSeeds: UInt64(pctSeeds), variant: variant)
            }
        },
        aliases: ["schedules"])
}

private func runInterleavings(bound: Int, limit: Int, pctSeeds: UInt64, variant: LogicVariant) -> Int32 {
    let scenario = ReconnectScenario(variant: variant)
    print("livesim interleavings: reconnect scenario, manager logic \(variant.name)")
    let report = InterleavingExplorer.explore(preemptionBound: bound, maxInterleavings: limit) {
        scenario.passes(under: $0)
    }
    print(report)
    var passed = report.passed
    if let failing = report.failing {
        let frames = scenario.run(under: ScriptedScheduling(prefix: failing))
        print("failing interleaving: the server saw \(frames.map { "\($0)" } ?? "fewer than two opens")")
    }
    if pctSeeds > 0 {
        let pct = InterleavingExplorer.pct(seeds: 0..<pctSeeds, depth: 3) { scenario.passes(under: $0) }
        print(pct)
        passed = passed && pct.passed
    }
    return passed ? 0 : 1
}
