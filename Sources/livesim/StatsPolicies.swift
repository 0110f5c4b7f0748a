import BackoffVerification
import Foundation
import LiveConnection
import Statistics

/// `livesim stats policies`: every built-in policy verified against its own claim.
enum StatsPolicies {
    static let policies: [(slug: String, policy: BackoffPolicy)] = [
        ("full-jitter", .fullJitter()),
        ("equal-jitter", .equalJitter()),
        ("decorrelated-jitter", .decorrelatedJitter()),
        ("proportional-jitter", .proportionalJitter()),
        ("exponential", .exponential()),
        ("table", .table()),
    ]

    static func run(_ arguments: inout Arguments) throws -> Int32 {
        let runs = try arguments.option("--runs", parse: { Int($0).flatMap { $0 >= 2 ? $0 : nil } }) ?? 1000
        let attempts = try arguments.option("--attempts", parse: { Int($0).flatMap { $0 >= 1 ? $0 : nil } }) ?? 8
        let seed = try arguments.option("--seed", parse: { UInt64($0) }) ?? 1
        let alpha = try StatsOptions.alpha(&arguments)
        let svg = try arguments.option("--svg")
        try arguments.finish()

        var allAccepted = true
        for (index, (slug, policy)) in policies.enumerated() {
            // Each policy gets its own stream, so the tables are independent samples.
            let seed = seed &+ UInt64(index)
            let report = BackoffFit.verify(policy, attempts: 1...attempts, runs: runs, seed: seed, alpha: alpha)
            allAccepted = allAccepted && report.accepted
            print(report.table())
            print("")
            guard let svg else { continue }
            // Attempt 3 shows each shape well; decorrelated's attempt depends on the last delay.
            let sample = policy.observations(runs: runs, attempts: 3...3, seed: seed)
            let stated = policy.distribution(afterFailures: 3, previous: nil)
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
                    let atCap = policy.distribution(afterFailures: 12, previous: policy.maximumDelay)
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
        return allAccepted ? 0 : 2
    }
}
