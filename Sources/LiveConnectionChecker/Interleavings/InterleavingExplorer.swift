public import SimulationKernel

/// Systematic exploration of the interleavings (job orders) a `SimulationExecutor` can
/// choose, for small async scenarios: bounded depth-first search over the choice points with a
/// preemption bound (as loom does), and PCT over many seeds.
///
/// ```swift
/// let report = InterleavingExplorer.explore(preemptionBound: 2) { strategy in
///     let result = Simulation.run(strategy: strategy, clock: VirtualClock()) { await scenario() }
///     return (try? result.get()) == expected          // true: this interleaving passed
/// }
/// print(report)   // "37 interleavings, all passed (exhaustive within 2 preemptions)"
/// ```
///
/// A *choice point* is a moment when more than one job is ready. Choosing a job other
/// than the first in arrival order counts as one preemption; most concurrency bugs need
/// only one or two (Musuvathi and Qadeer, CHESS), so bounding them keeps the search small
/// while still covering the interleavings that matter. Each interleaving is run from
/// scratch: the scenario must be deterministic for a given interleaving (everything on the
/// simulation's executor and virtual clock), which the explorer checks (`diverged`).
///
/// "Interleaving" is the project's word for an order of jobs; "schedule" is reserved for
/// a world's timetable of actions (`ScheduleBuilder`, a scenario's `schedule`). A
/// `SchedulingStrategy` is what picks the interleaving one run follows.
public enum InterleavingExplorer {
    /// What an exploration found.
    public struct Report: Sendable, CustomStringConvertible {
        /// Distinct interleavings run.
        public var interleavings = 0
        /// True if every interleaving within the bound was run (not stopped by `maxInterleavings`).
        public var exhaustive = false
        /// The choices of the first failing interleaving (replay with `ScriptedScheduling`).
        public var failing: [Int]?
        /// The most choice points one interleaving met.
        public var deepest = 0
        /// A replayed prefix did not reproduce its choice points: the scenario depends on
        /// something besides the interleaving.
        public var diverged = false
        /// How the interleavings were chosen.
        public var method = ""

        /// True if no interleaving failed and the scenario was deterministic.
        public var passed: Bool { failing == nil && !diverged }

        public var description: String {
            let verdict = failing.map { "FAILED with choices \($0)" } ?? "all passed"
            return "\(interleavings) interleavings, \(verdict) (\(method)\(exhaustive ? ", exhaustive" : "")"
                + "\(diverged ? ", NONDETERMINISTIC" : "")"
                // PCT draws its choices and does not count choice points.
                + (deepest > 0 ? "; at most \(deepest) choice points)" : ")")
        }
    }

    /// Runs every interleaving with at most `preemptionBound` preemptions (nil: all), up to
    /// `maxInterleavings`, stopping at the first failure. `run` runs the scenario under the
    /// strategy it is given and returns whether that interleaving passed.
    public static func explore(
        preemptionBound: Int? = 2, maxInterleavings: Int = 100_000, _ run: (ScriptedScheduling) -> Bool
    ) -> Report {
        var report = Report()
        report.method = preemptionBound.map { "depth-first, at most \($0) preemptions" } ?? "depth-first, unbounded"
        var prefix: [Int] = []
        while report.interleavings < maxInterleavings {
            let strategy = ScriptedScheduling(prefix: prefix)
            let passed = run(strategy)
            report.interleavings += 1
            let points = strategy.choicePoints
            report.deepest = max(report.deepest, points.count)
            if strategy.diverged || points.prefix(prefix.count).map(\.choice) != prefix {
                report.diverged = true
                return report
            }
            if !passed {
                report.failing = points.map(\.choice)
                return report
            }
            guard let next = nextPrefix(after: points, bound: preemptionBound) else {
                report.exhaustive = true
                return report
            }
            prefix = next
        }
        return report
    }

    /// Runs the scenario under PCT (Burckhardt et al.) for each seed: a probabilistic
    /// guarantee of finding a bug of depth `depth` instead of an exhaustive one, for
    /// scenarios too big to enumerate.
    public static func pct(
        seeds: Range<UInt64>, depth: Int, expectedSteps: Int = PCTScheduling.defaultExpectedSteps,
        _ run: (PCTScheduling) -> Bool
    ) -> Report {
        var report = Report()
        report.method = "PCT depth \(depth), seeds \(seeds.lowerBound)..<\(seeds.upperBound)"
        for seed in seeds {
            report.interleavings += 1
            if !run(PCTScheduling(seed: seed, depth: depth, expectedSteps: expectedSteps)) {
                report.failing = [Int(seed)]
                report.method += " (failing entry is the seed)"
                return report
            }
        }
        return report
    }

    /// The next interleaving in depth-first order: the deepest choice point that can take
    /// its next alternative without exceeding the preemption bound.
    static func nextPrefix(after points: [ScriptedScheduling.ChoicePoint], bound: Int?) -> [Int]? {
        var preemptionsBefore = [Int](repeating: 0, count: points.count + 1)
        for (index, point) in points.enumerated() {
            preemptionsBefore[index + 1] = preemptionsBefore[index] + (point.choice == 0 ? 0 : 1)
        }
        for index in points.indices.reversed() {
            let point = points[index]
            guard point.choice + 1 < point.readyCount else { continue }
            if let bound, preemptionsBefore[index] + 1 > bound { continue }
            return points[..<index].map(\.choice) + [point.choice + 1]
        }
        return nil
    }
}
