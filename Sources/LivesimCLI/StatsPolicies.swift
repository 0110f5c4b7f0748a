import BackoffVerification
import Foundation
import LiveConnection
import LiveConnectionSimulator
import Statistics

/// `livesim stats policies`: every built-in policy's own draws verified against the
/// distribution its publication states (`Specification.publishedDelay`), not against
/// `BackoffPolicy.distribution`: a draw narrowed inside its range, or a lost atom at the
/// cap, changes both the draws and the code's own claim, and only the publication differs.
enum StatsPolicies {
    static let policies: [(slug: String, policy: BackoffPolicy)] = [
        ("full-jitter", .fullJitter()),
        ("equal-jitter", .equalJitter()),
        ("decorrelated-jitter", .decorrelatedJitter()),
        ("proportional-jitter", .proportionalJitter()),
        ("exponential", .exponential()),
        ("table", .table()),
    ]

    static func parse(_ arguments: inout Arguments) throws(ArgumentError) -> Command.Invocation {
        let runs = try arguments.integer("--runs", in: 2...100_000, default: 1000)
        let attempts = try arguments.integer("--attempts", in: 1...30, default: 8)
        let seed = try arguments.seed("--seed") ?? 1
        let alpha = try StatsOptions.alpha(&arguments)
        let svg = try arguments.option("--svg")
        try arguments.finish()
        return { try run(runs: runs, attempts: attempts, seed: seed, alpha: alpha, svg: svg) }
    }

    private static func run(runs: Int, attempts: Int, seed: UInt64, alpha: Double, svg: String?) throws -> Int32 {
        let progress = ProgressLine("verified", unit: "policies", total: policies.count)
        var allAccepted = true
        for (index, (slug, policy)) in policies.enumerated() {
            progress.update(index)
            // Each policy gets its own stream, so the tables are independent samples.
            let seed = seed &+ UInt64(index)
            let report = BackoffFit.verify(policy, attempts: 1...attempts, runs: runs, seed: seed, alpha: alpha)
            allAccepted = allAccepted && report.accepted
            print(report.table())
            print("")
            guard let svg else { continue }
            // Attempt 3 shows each shape well; decorrelated's attempt depends on the last delay.
            let sample = policy.observations(runs: runs, attempts: 3...3, seed: seed)
            let stated = Specification.seedDocuments.publishedDelay(policy, afterFailures: 3, previous: nil)
            if case .decorrelatedJitter = policy.kind {
                let transforms = BackoffFit.pooledTransforms(
                    policy.observations(runs: runs, attempts: 1...attempts, seed: seed), claim: policy, tolerance: .zero
                )
                let title = "\(slug): U = F(delay | previous) below the cap, attempts 1–\(attempts)"
                try StatsOptions.write(
                    DelayCharts.transformHistogram(transforms, title: title), named: "policy-\(slug)-histogram",
                    into: svg)
                try StatsOptions.write(
                    DelayCharts.transformCumulative(transforms, title: title), named: "policy-\(slug)-ecdf", into: svg)
                let capped = policy.observations(runs: runs, attempts: 12...12, seed: seed)
                    .filter { $0.previous == policy.maximumDelay }
                if !capped.isEmpty {
                    let atCap = Specification.seedDocuments.publishedDelay(
                        policy, afterFailures: 12, previous: policy.maximumDelay)
                    let title = "\(slug): delay after a delay at the cap (\(capped.count) draws)"
                    try StatsOptions.write(
                        DelayCharts.histogram(capped.map(\.delay), stated: atCap, title: title),
                        named: "policy-\(slug)-at-cap", into: svg)
                }
            } else {
                let title = "\(slug), attempt 3: \(stated)"
                try StatsOptions.write(
                    DelayCharts.histogram(sample.map(\.delay), stated: stated, title: title),
                    named: "policy-\(slug)-histogram", into: svg)
                try StatsOptions.write(
                    DelayCharts.cumulative(sample.map(\.delay), stated: stated, title: title),
                    named: "policy-\(slug)-ecdf", into: svg)
            }
        }
        progress.finish(policies.count)
        return allAccepted ? 0 : 2
    }
}
