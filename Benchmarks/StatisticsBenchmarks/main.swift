import BackoffVerification
import BenchmarkSupport
import Foundation
import LiveConnection
import Statistics

// Statistics benchmarks: KS and χ² on a million samples, the exact Kolmogorov
// distribution, a full fit report, and the herd experiments with 1,000 clients.
//
//     swift run -c release StatisticsBenchmarks [--output Benchmarks/results/statistics.md]
//
// Each figure is the median of several runs on the wall clock (benchmarks may read it;
// the library never does). Baselines in the same run: sorting the sample (the floor
// under any KS implementation) and, for the herd, full jitter against no jitter.

/// Median wall time of `repetitions` runs of `body`, in seconds.
func measure(repetitions: Int = 5, _ body: () -> Void) -> Double {
    let clock = ContinuousClock()
    var times: [Double] = []
    for _ in 0..<repetitions {
        let elapsed = clock.measure(body)
        times.append(elapsed.seconds)
    }
    return times.sorted()[times.count / 2]
}

/// Keeps a result alive so the optimizer cannot drop the work.
nonisolated(unsafe) var sink = 0.0

var output = "Benchmarks/results/statistics.md"
var words = Array(CommandLine.arguments.dropFirst())
if let index = words.firstIndex(of: "--output"), index + 1 < words.count {
    output = words[index + 1]; words.removeSubrange(index...index + 1)
}

nonisolated(unsafe) var lines: [String] = []
func report(_ line: String) {
    print(line)
    lines.append(line)
}

let n = 1_000_000
var random = Xoshiro256StarStar(seed: 2026)
let sample = (0..<n).map { _ in random.unitDouble() }

let sortTime = measure { sink += sample.sorted()[n / 2] }
let ksTime = measure {
    let test = KolmogorovSmirnovTest(sample: sample) { $0 }
    sink += test.pValue
}
let chiTime = measure { sink += ChiSquareTest.uniform(unitValues: sample).pValue }
let exactTime = measure(repetitions: 9) {
    // n = 1000 at the 1 % critical value: a 103-wide matrix pushed 1000 times.
    sink += KolmogorovDistribution.survival(0.0513, sampleSize: 1000)
}
let observations = BackoffPolicy.fullJitter().observations(runs: 10_000, attempts: 1...10, seed: 1)
let fitTime = measure(repetitions: 3) {
    let result = try? BackoffFit.fit(observations, to: .fullJitter())
    sink += result.map { $0.accepted ? 1 : 0 } ?? 0
}

report("# Statistics benchmarks")
report("")
for line in BenchmarkMachine.current.markdown { report(line) }
report("- build: `swift run -c release StatisticsBenchmarks`; median wall time of 3–9 runs")
report("")
report("## Tests on a million samples")
report("")
report("| what | time | vs sorting 1 M doubles |")
report("|---|---:|---:|")
report("| baseline: `sorted()` of 1 M doubles | \(String(format: "%.1f ms", sortTime * 1e3)) | 1.00 |")
report(
    "| KS one-sample, 1 M samples (sort + D + asymptotic p) | \(String(format: "%.1f ms", ksTime * 1e3)) | \(String(format: "%.2f", ksTime / sortTime)) |"
)
report(
    "| χ² on equiprobable bins, 1 M samples | \(String(format: "%.1f ms", chiTime * 1e3)) | \(String(format: "%.2f", chiTime / sortTime)) |"
)
report(
    "| exact KS p-value (Marsaglia–Tsang–Wang), n = 1000 at D = 0.0513 | \(String(format: "%.2f ms", exactTime * 1e3)) | |"
)
report(
    "| full fit report (15 rows) on 100,000 delays (10,000 runs × 10 attempts) | \(String(format: "%.0f ms", fitTime * 1e3)) | |"
)
report("")

report("## Herd experiments with 1,000 clients")
report("")
report("| experiment | policy | time | calls / attempts | vs full jitter (calls) |")
report("|---|---|---:|---:|---:|")
var fullCalls = 0.0
for named in HerdStudy.contentionPolicies.filter({ $0.name == "full jitter" })
    + HerdStudy.contentionPolicies.filter({ $0.name != "full jitter" })
{
    var outcome: ContentionExperiment.Outcome?
    let time = measure(repetitions: 3) {
        outcome = ContentionExperiment(clients: 1000, policy: named.policy, seed: 1).run()
    }
    let calls = Double(outcome?.calls ?? 0)
    if named.name == "full jitter" { fullCalls = calls }
    report(
        "| contention, 1,000 clients | \(named.name) | \(String(format: "%.2f s", time)) | \(Int(calls)) | \(String(format: "%.2f", calls / max(1, fullCalls))) |"
    )
}
var fullAttempts = 0.0
for named in HerdStudy.reconnectPolicies.filter({ $0.name == "full jitter" })
    + HerdStudy.reconnectPolicies.filter({ $0.name != "full jitter" })
{
    var outcome: ReconnectExperiment.Outcome?
    let time = measure(repetitions: 3) {
        outcome = ReconnectExperiment(connections: 1000, policy: named.policy, seed: 1).run()
    }
    let attempts = Double(outcome?.attempts ?? 0)
    if named.name == "full jitter" { fullAttempts = attempts }
    report(
        "| outage, 1,000 connections | \(named.name) | \(String(format: "%.3f s", time)) | \(Int(attempts)) | \(String(format: "%.2f", attempts / max(1, fullAttempts))) |"
    )
}
report("")
report("## Calibration (the same seeds as the tests; counts, not timings)")
report("")
report("| what | trials | rejected | rate | binomial 10⁻⁴ band at the nominal rate |")
report("|---|---:|---:|---:|---|")
func uniformSample(_ count: Int, seed: UInt64) -> [Double] {
    var random = Xoshiro256StarStar(seed: seed)
    return (0..<count).map { _ in random.unitDouble() }
}
for alpha in [0.01, 0.05] {
    let rejected = (0..<UInt64(1000)).filter {
        KolmogorovSmirnovTest(sample: uniformSample(100, seed: 1_000 + $0)) { $0 }.pValue < alpha
    }.count
    let band = PowerAnalysis.binomialAcceptanceRange(trials: 1000, probability: alpha, tail: 1e-4)
    report(
        "| KS, n = 100, true uniform, α = \(alpha) | 1000 | \(rejected) | \(String(format: "%.3f", Double(rejected) / 1000)) | \(band) |"
    )
}
do {
    let rejected = (0..<UInt64(1000)).filter {
        ChiSquareTest.uniform(unitValues: uniformSample(200, seed: 50_000 + $0)).pValue < 0.01
    }.count
    let band = PowerAnalysis.binomialAcceptanceRange(trials: 1000, probability: 0.01, tail: 1e-4)
    report(
        "| χ², n = 200, true uniform, α = 0.01 | 1000 | \(rejected) | \(String(format: "%.3f", Double(rejected) / 1000)) | \(band) |"
    )
}
for (name, policy) in [("full jitter", BackoffPolicy.fullJitter()), ("decorrelated jitter", .decorrelatedJitter())] {
    let rejected = (0..<UInt64(200)).filter {
        !BackoffFit.verify(policy, attempts: 1...6, runs: 40, seed: 7_000 + $0, alpha: 0.05).accepted
    }.count
    let band = PowerAnalysis.binomialAcceptanceRange(trials: 200, probability: 0.05, tail: 1e-4)
    report(
        "| whole fit report, \(name), 240 delays, family α = 0.05 | 200 | \(rejected) | \(String(format: "%.3f", Double(rejected) / 200)) | ≤ \(band.upperBound) |"
    )
}
do {
    let n = PowerAnalysis.kolmogorovSmirnovSampleSize(effect: 0.1, alpha: 0.01, power: 0.9)
    let rejected = (0..<UInt64(100)).filter { seed in
        KolmogorovSmirnovTest(sample: uniformSample(n, seed: 90_000 + seed).map { min(1, $0 + 0.1) }) { $0 }.pValue
            < 0.01
    }.count
    report(
        "| power: KS, n = \(n) (sized for ε = 0.1, power 0.9), shift of 0.1, α = 0.01 | 100 | \(rejected) | \(String(format: "%.2f", Double(rejected) / 100)) | ≥ 0.9 promised |"
    )
    let small = PowerAnalysis.kolmogorovSmirnovSampleSize(effect: 0.2, alpha: 0.01, power: 0.5)
    let weak = (0..<UInt64(100)).filter { seed in
        KolmogorovSmirnovTest(sample: uniformSample(small, seed: 90_000 + seed).map { min(1, $0 + 0.1) }) { $0 }.pValue
            < 0.01
    }.count
    report(
        "| power: the same shift at n = \(small) (too few samples) | 100 | \(weak) | \(String(format: "%.2f", Double(weak) / 100)) | |"
    )
}
report("")
report("sink \(sink > 0 ? "ok" : "?")")

do {
    try ResultsFile(path: output, title: "# Statistics benchmarks")
        .write(section: "run", lines.dropFirst().joined(separator: "\n"))
    print("wrote \(output)")
} catch {
    print("could not write \(output): \(error)")
}
