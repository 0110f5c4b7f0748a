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
            whether all passed; a failing schedule is printed as its choice list. Exits 1 on a
            failure.

              --preemptions N    bound on preemptions per schedule (default 1; 2 runs tens of thousands)
              --max-schedules N  stop after N schedules (default 5000)
              --pct SEEDS        also run PCT (depth 3) for SEEDS seeds (default 0: off)
              --variant NAME     the logic in the manager (default correct)
            """,
        run: runSchedules)
}

private func runSchedules(_ arguments: inout Arguments) throws -> Int32 {
    let bound = try arguments.option("--preemptions") { Int($0).flatMap { $0 >= 0 ? $0 : nil } } ?? 1
    let limit = try arguments.option("--max-schedules") { Int($0).flatMap { $0 > 0 ? $0 : nil } } ?? 5_000
    let pctSeeds = try arguments.option("--pct") { UInt64($0) } ?? 0
    let variant = try arguments.option("--variant", parse: { LogicVariant.named($0) }) ?? .correct
    try arguments.finish()

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
