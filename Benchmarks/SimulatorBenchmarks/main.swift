import BenchmarkSupport
import Foundation
import LiveConnection
import LiveConnectionSimulator

// Simulator benchmarks: how much virtual time the simulator covers per second of wall and
// CPU time, seeds per second, and whether memory grows with the number of seeds.
//
//   swift run -c release SimulatorBenchmarks      (writes Benchmarks/results/simulator.md)
//
// The machine is shared with other builds, so every figure is given both per wall second
// and per CPU second (getrusage: user + system time of this process); "per core" ratios
// divide simulated time by CPU time, which other processes do not inflate.

#if canImport(Glibc)
    import Glibc
#endif

struct Measurement {
    var runs: Int
    var simulated: Duration
    var wall: Double
    var cpu: Double
    var jobs: Int
    var checks: Int

    var perWall: Double { simulated.seconds / wall }
    var perCPU: Double { simulated.seconds / cpu }
}

func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

func peakMemoryMiB() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_maxrss) / 1024  // kilobytes on Linux
}

func measure(_ explorer: Explorer) -> Measurement {
    let cpuBefore = cpuSeconds()
    let start = ContinuousClock.now
    let summary = explorer.run()
    let wall = (ContinuousClock.now - start).seconds
    let cpu = cpuSeconds() - cpuBefore
    return Measurement(
        runs: summary.runs, simulated: summary.simulatedTime, wall: wall, cpu: cpu, jobs: summary.jobsRun,
        checks: summary.invariantChecks)
}

/// Runs each scenario with `checksInvariants` as given, one thread (the baseline without checks).
func measureRuns(_ scenarios: [Scenario], checks: Bool) -> Measurement {
    let cpuBefore = cpuSeconds()
    let start = ContinuousClock.now
    var simulated = Duration.zero
    var jobs = 0
    var invariantChecks = 0
    for scenario in scenarios {
        // Never stop early: both sides must simulate the same hours.
        let result = SimulationRun(scenario, recordsLog: false, stopsAtFirstViolation: false, checksInvariants: checks)
            .run()
        simulated += result.simulatedTime
        jobs += result.jobsRun
        invariantChecks += result.invariantChecks
    }
    return Measurement(
        runs: scenarios.count, simulated: simulated, wall: (ContinuousClock.now - start).seconds,
        cpu: cpuSeconds() - cpuBefore, jobs: jobs, checks: invariantChecks)
}

/// The floor a job can cost: CPU nanoseconds per job of `BareJobQueue` (an unsynchronized
/// FIFO array, no strategy, no clock) running 100 tasks × 1,000 yields, best of 5.
func bareNanosecondsPerJob() -> Double {
    bareCost {
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<100 { group.addTask { for _ in 0..<1000 { await Task.yield() } } }
        }
    }
}

func format(_ value: Double, _ decimals: Int = 0) -> String { String(format: "%.\(decimals)f", value) }

let threads = ProcessInfo.processInfo.activeProcessorCount
var lines: [String] = []
@MainActor func report(_ line: String = "") {
    print(line)
    lines.append(line)
}

let allFaults = ScenarioGenerator(duration: .seconds(3600), faults: .all(every: .seconds(300)))

// `SimulatorBenchmarks exploration`: the exploration below alone, one thread, nothing written,
// for `Benchmarks/jobs/job-kinds.py` to count its jobs by kind (docs/benchmarks.md).
if CommandLine.arguments.dropFirst().first == "exploration" {
    let alone = measure(Explorer(seeds: 0..<200, generator: allFaults, threads: 1))
    print(
        "\(alone.runs) seeds, \(alone.jobs) jobs, \(format(alone.cpu, 2)) CPU s, \(format(alone.perCPU))× per CPU second"
    )
    exit(0)
}

// 0. The bare executor's cost per job, in this run: the floor under the figures below; and
//    the runtime's cost per job of each kind a simulation runs (RuntimeFloor.swift).
let bareJobNanoseconds = bareNanosecondsPerJob()
let kindCosts = runtimeCostsPerJobKind()

// 1. Exploration with every fault kind on (each every 5 minutes on average: a fault
//    every ~16 s), every configuration, an hour per seed, on all cores.
let exploration = measure(Explorer(seeds: 0..<200, generator: allFaults, threads: threads))

// 2. The same seeds on one thread without invariant checks, and with: what checking costs.
let someScenarios = (UInt64(0)..<60).map { allFaults.scenario(seed: $0) }
let unchecked = measureRuns(someScenarios, checks: false)
let checked = measureRuns(someScenarios, checks: true)

// 3. Issue 2's figure: one connection, P = 25 s, T = 10 s, a fault every few minutes
//    (a reset, a close, a freeze or a refusal, each every 12 minutes: one every 3 minutes).
var production = ConnectionConfiguration()
production.resume = true
let calmMix = FaultMix(rates: [
    .init(kind: .reset, meanInterval: .seconds(720)), .init(kind: .close, meanInterval: .seconds(720)),
    .init(kind: .freeze, meanInterval: .seconds(720)), .init(kind: .refuse, meanInterval: .seconds(720)),
    .init(kind: .broadcast, meanInterval: .seconds(60)),
])
let calm = ScenarioGenerator(duration: .seconds(3600), strategy: .fifo, faults: calmMix, configuration: production)
let oneConnection = measureRuns((UInt64(0)..<300).map { calm.scenario(seed: $0) }, checks: true)

// 4. Peak memory after 100 seeds, then after 1,000 more in the same process.
let memoryGenerator = ScenarioGenerator(duration: .seconds(3600), faults: .all(every: .seconds(300)))
_ = measure(Explorer(seeds: 10_000..<10_100, generator: memoryGenerator, threads: threads))
let memoryAfter100 = peakMemoryMiB()
_ = measure(Explorer(seeds: 10_100..<11_100, generator: memoryGenerator, threads: threads))
let memoryAfter1100 = peakMemoryMiB()

// 5. Determinism in release: the same seeds twice, full logs compared byte for byte.
let determinismSeeds = UInt64(0)..<20
var identical = 0
var differentFromNext = 0
for seed in determinismSeeds {
    let generator = ScenarioGenerator(duration: .seconds(3600))
    let first = SimulationRun(generator.scenario(seed: seed)).run().log
    let second = SimulationRun(generator.scenario(seed: seed)).run().log
    let next = SimulationRun(generator.scenario(seed: seed + 1)).run().log
    if first == second { identical += 1 }
    if first != next { differentFromNext += 1 }
}

// 6. Where the time goes: an idle connection (P = 25 s, no faults, no traffic) for an hour.
let idle = Scenario(
    seed: 0, configuration: production, strategy: .fifo, duration: .seconds(3600), faults: FaultMix(rates: []),
    schedule: [ScheduledAction(at: .zero, .subscribe("feed")), ScheduledAction(at: .zero, .connect(endpoint: 0))],
    managerSeed: 1)
let idleRun = SimulationRun(idle, recordsLog: false).run()
let heartbeats = Double(3600 / 25)

report("# Simulator benchmarks")
report()
for line in BenchmarkMachine.current.markdown { report(line) }
report("- build: release; the machine is shared, so ratios are given per wall second and per CPU second")
report()
report("## Exploration, every fault kind on (1 h per seed, \(exploration.runs) seeds, \(threads) threads)")
report()
report("| figure | value |")
report("| --- | --- |")
report("| simulated time | \(format(exploration.simulated.seconds / 3600)) h |")
report("| wall time | \(format(exploration.wall, 2)) s |")
report("| CPU time | \(format(exploration.cpu, 2)) s |")
report("| simulated / wall | \(format(exploration.perWall))× |")
report("| simulated / CPU second (per core) | \(format(exploration.perCPU))× (goal 1,000,000×) |")
report("| seeds per wall second | \(format(Double(exploration.runs) / exploration.wall, 1)) |")
report("| executor jobs per simulated hour | \(exploration.jobs / max(1, exploration.runs)) |")
report("| CPU time per job | \(format(exploration.cpu / Double(max(1, exploration.jobs)) * 1e9)) ns |")
report(
    "| baseline, same run: bare FIFO job queue, CPU per job (100 tasks × 1,000 yields) | \(format(bareJobNanoseconds)) ns |"
)
report(
    "| ceiling at this job count if every job cost the bare queue's | "
        + "\(format(3600 / (Double(exploration.jobs) / Double(max(1, exploration.runs)) * bareJobNanoseconds * 1e-9)))× |"
)
report("| invariant checks | \(exploration.checks) |")
report()
report("## The runtime's cost per job, by kind (bare workloads, same run)")
report()
let jobsPerHour = Double(exploration.jobs) / Double(max(1, exploration.runs))
report("| kind | bare workload | CPU per job | ceiling at \(format(jobsPerHour)) jobs per simulated hour |")
report("| --- | --- | --- | --- |")
for cost in kindCosts {
    report(
        "| \(cost.kind) | \(cost.workload) | \(format(cost.nanosecondsPerJob)) ns | "
            + "\(format(3600 / (jobsPerHour * cost.nanosecondsPerJob * 1e-9)))× |")
}
report()
report(
    "Under a task-executor preference the runtime switches isolation only by enqueueing: every hop onto an actor and back is a job. The ceiling is the simulated time per CPU second if every job of the exploration above cost only the runtime's price for that kind and none of our code ran; `Benchmarks/jobs/job-kinds.py` counts how many jobs of each kind a run has (docs/benchmarks.md)."
)
report()
report("## Cost of checking (same \(checked.runs) scenarios, one thread)")
report()
report("| | simulated / CPU second | ratio |")
report("| --- | --- | --- |")
report("| baseline: no invariant checks | \(format(unchecked.perCPU))× | 1.00 |")
report(
    "| every invariant after every step | \(format(checked.perCPU))× | \(format(checked.cpu / unchecked.cpu, 2)) × the CPU time |"
)
report()
report(
    "## One connection, P = 25 s, a fault every ~3 minutes (issue 2's figure; \(oneConnection.runs) hours, one thread)")
report()
report("| figure | value |")
report("| --- | --- |")
report(
    "| CPU time per simulated hour | \(format(oneConnection.cpu / Double(oneConnection.runs) * 1000, 3)) ms (target ≤ 5 ms) |"
)
report("| wall time per simulated hour | \(format(oneConnection.wall / Double(oneConnection.runs) * 1000, 3)) ms |")
report("| simulated / CPU second | \(format(oneConnection.perCPU))× |")
report("| executor jobs per simulated hour | \(oneConnection.jobs / max(1, oneConnection.runs)) |")
report()
report("## Peak memory (resident set, whole process)")
report()
report("| after | peak RSS |")
report("| --- | --- |")
report("| 100 seeds | \(format(memoryAfter100, 1)) MiB |")
report("| 1,100 seeds | \(format(memoryAfter1100, 1)) MiB |")
report()
report("Each run keeps only counters once it ends, so the peak should not grow with the seed count.")
report()
report("## Where the time goes")
report()
report(
    "An idle connection (P = 25 s, no faults, no traffic) costs \(idleRun.jobsRun) executor jobs and \(idleRun.inputs) manager inputs per simulated hour: \(format(Double(idleRun.jobsRun) / heartbeats, 1)) jobs per heartbeat for 2 inputs (the heartbeat timer and the pong). The shell's timers share one sleeping job per manager (TimerSchedule: a disarmed pong deadline costs that job one wake-up and no actor hop); a ping is written by the generation's writer loop and its pong read by the receive loop (no task per ping), and every callback is an actor hop. The bare queue above costs \(format(bareJobNanoseconds)) ns a job; ours cost \(format(exploration.cpu / Double(max(1, exploration.jobs)) * 1e9)) ns each on average, because each job also does its work through the Swift runtime: actor switches under a task-executor preference (the runtime looks the preferred executor up under a lock), task creation and destruction, continuations, the shell's mailboxes (its own, specialized: the job queue, each generation's orders, the event subscribers), and the invariant monitor (checking every invariant after every step took \(format(checked.cpu / unchecked.cpu, 2)) × the CPU time of not checking in this run; it moves between 1.0 and 1.9 from run to run on this shared machine). docs/benchmarks.md has the profile."
)
report()
report("## Determinism in this (release) build")
report()
report("- \(identical) of \(determinismSeeds.count) seeds gave byte-identical logs when run twice")
report("- \(differentFromNext) of \(determinismSeeds.count) logs differed from the next seed's")

// The run's own section; the comparisons written by hand below it stay.
let results = ResultsFile("simulator.md", title: "# Simulator benchmarks")
do {
    try results.write(section: "run", lines.dropFirst().joined(separator: "\n"))
    print("\nwrote \(results.path)")
} catch {
    print("could not write \(results.path): \(error)")
}
