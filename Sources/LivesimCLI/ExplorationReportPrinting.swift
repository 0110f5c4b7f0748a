import Foundation
import LiveConnectionSimulator

/// The summary table and the failures, from a report (one run's, or merged shards').
func printReport(_ report: ExplorationReport) {
    let results = report.results
    func row(_ label: String, _ value: String) {
        print(label.padding(toLength: 34, withPad: " ", startingAt: 0) + value)
    }
    let simulated = Double(results.simulatedNanoseconds) / 1e9
    // Shards run side by side: the wall time is the longest one's.
    let wall = report.shards.map(\.wallSeconds).max() ?? 0
    let threads = report.shards.map(\.threads).reduce(0, +)
    print("")
    row("runs", "\(results.runs)")
    // A failing run stops at its first violation, so its time is short: say so, or a
    // report of failing seeds reads as if nothing was simulated.
    row(
        "simulated time",
        formatSimulatedTime(seconds: simulated)
            + (results.failureCount > 0 ? " (a failing run stops at its first violation)" : ""))
    row(
        report.shards.count > 1 ? "wall time (longest of \(report.shards.count) shards)" : "wall time",
        String(format: "%.2f s", wall))
    if wall > 0 {
        row(
            "simulated / wall",
            String(format: "%.0f× (%.0f× per thread)", simulated / wall, simulated / wall / Double(max(threads, 1))))
        row("seeds per second", String(format: "%.1f", Double(results.runs) / wall))
    }
    row("manager inputs", "\(results.inputs)")
    row("executor jobs", "\(results.executorJobs)")
    row("invariant checks", "\(results.invariantChecks)")
    print("\nfaults injected, by kind (actions applied)")
    for kind in FaultKind.allCases {
        row("  \(kind.rawValue)", "\(results.faults[kind.rawValue] ?? 0)")
    }
    print("\nviolations, by invariant (runs)")
    for invariant in Rule.invariants {
        row("  \(invariant.name)", "\(results.violatingRuns[invariant.name] ?? 0)")
    }
    if results.deadlocks > 0 { row("  simulation deadlocked", "\(results.deadlocks)") }
    if results.checksDeterminism { row("  two runs differed", "\(results.divergentRuns)") }
    printDistribution(results.delayPool)
    guard results.failureCount > 0 else { return }

    print("\nfailing seeds, by invariant (the first 20 of each)")
    for invariant in Rule.invariants {
        let seeds = results.failures.filter { $0.violations.contains { $0.invariant == invariant.name } }.map(\.seed)
        guard !seeds.isEmpty else { continue }
        let shown = seeds.prefix(20).map(String.init).joined(separator: " ")
        print("  \(invariant.name): \(shown)\(seeds.count > 20 ? " …" : "")")
    }
    print("\n\(results.failureCount) failing run(s); the first \(min(results.failures.count, 10)):")
    for failure in results.failures.prefix(10) {
        print("seed \(failure.seed):")
        if failure.deadlocked { print("  the simulation deadlocked") }
        if let divergence = failure.divergence { print("  not deterministic: \(divergence)") }
        for violation in failure.violations {
            print(
                "  \(VirtualClock.Instant.start + .nanoseconds(violation.atNanoseconds)) \(violation.invariant): \(violation.detail)"
            )
        }
        print("  replay: \(failure.replay)")
    }
}

/// `backoff-distribution`, judged once over every run's retry delays: the groups tested,
/// and each rejected one with its statistic and the bin furthest from the publication.
private func printDistribution(_ pool: BackoffDelayPool) {
    let verdicts = pool.verdicts()
    let rejected = verdicts.filter(\.rejected)
    print(
        "\nbackoff-distribution, pooled over the runs: \(pool.total) retry delays, \(verdicts.count) tests "
            + "(χ² per policy and failure count, the mass at the cap per policy) at family-wise α = "
            + "\(Specification.falseAlarmAlpha), \(rejected.count) rejected")
    for verdict in rejected { print("  backoff-distribution: \(verdict)") }
}
