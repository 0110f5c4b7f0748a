import LiveConnectionChecker
import LiveConnectionSimulator

extension Command {
    /// `livesim schedules`: every job order of a small scenario of the real manager.
    static let schedules = Command(
        name: "schedules",
        summary: "explore the async shell's job orders on a small reconnect scenario",
        usage: """
            usage: livesim schedules [--preemptions N] [--max-schedules N] [--pct SEEDS] [--variant NAME]

            Runs the real ConnectionManager on the simulation executor in a small scenario
            (subscribe, connect, the server closes the first connection after 1 s, reconnect)
            under every job order with at most N preemptions, depth-first over the choice
            points, as loom does. Each schedule passes when both connections were subscribed
            and the second resumed before its open. Prints how many distinct schedules ran and
            whether all passed; a failing schedule is printed as its choice list.

              --preemptions N    bound on preemptions per schedule, 0 to 10 (default 1; 2 runs tens of thousands)
              --max-schedules N  stop after N schedules, 1 to 10000000 (default 5000)
              --pct SEEDS        also run PCT (depth 3) for SEEDS seeds, 0 to 1000000 (default 0: off)
              --variant V        the logic in the manager (default correct): \(SimulationUsage.variants)
            """,
        exitCodes: [0: "every schedule passed", 1: "a schedule failed, or an error"],
        parse: { arguments throws(ArgumentError) in
            let bound = try arguments.integer("--preemptions", in: 0...10, default: 1)
            let limit = try arguments.integer("--max-schedules", in: 1...10_000_000, default: 5_000)
            let pctSeeds = try arguments.integer("--pct", in: 0...1_000_000, default: 0)
            let variant = try arguments.variant() ?? .correct
            try arguments.finish()
            return { runSchedules(bound: bound, limit: limit, pctSeeds: UInt64(pctSeeds), variant: variant) }
        })
}

private func runSchedules(bound: Int, limit: Int, pctSeeds: UInt64, variant: LogicVariant) -> Int32 {
    let scenario = ReconnectScenario(variant: variant)
    print("livesim schedules: reconnect scenario, manager logic \(variant.name)")
    let report = ScheduleExplorer.explore(preemptionBound: bound, maxSchedules: limit) { scenario.passes(under: $0) }
    print(report)
    var passed = report.passed
    if let failing = report.failing {
        let frames = scenario.run(under: ScriptedScheduling(prefix: failing))
        print("failing schedule: the server saw \(frames.map { "\($0)" } ?? "fewer than two opens")")
    }
    if pctSeeds > 0 {
        let pct = ScheduleExplorer.pct(seeds: 0..<pctSeeds, depth: 3) { scenario.passes(under: $0) }
        print(pct)
        passed = passed && pct.passed
    }
    return passed ? 0 : 1
}
