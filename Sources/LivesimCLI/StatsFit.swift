import BackoffVerification
import Foundation
import LiveConnection
import LiveConnectionSimulator
import Statistics

/// `livesim stats fit FILE --policy …`: delays recorded elsewhere against a claimed policy.
enum StatsFit {
    static func parse(_ arguments: inout Arguments) throws(ArgumentError) -> Command.Invocation {
        let policy = try StatsOptions.policy(&arguments)
        let alpha = try StatsOptions.alpha(&arguments)
        let attempt = try arguments.integer("--attempt", in: 1...1000)
        let tolerance = try arguments.duration("--tolerance", in: .zero...(.seconds(1)), default: .microseconds(500))
        let svg = try arguments.option("--svg")
        let path = try arguments.positional("FILE")
        try arguments.finish()
        return { try run(path, policy: policy, alpha: alpha, attempt: attempt, tolerance: tolerance, svg: svg) }
    }

    private static func run(
        _ path: String, policy: BackoffPolicy, alpha: Double, attempt: Int?, tolerance: Duration, svg: String?
    ) throws -> Int32 {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw FitFailure(describe(error))
        }
        let observations: [DelayObservation]
        let report: FitReport
        do {
            observations = try DelayFile.parse(text, attempt: attempt)
            report = try BackoffFit.fit(observations, to: policy, alpha: alpha, tolerance: tolerance)
        } catch {
            throw FitFailure("\(clipped(path, to: 200)): \(clipped(String(describing: error), to: 200))")
        }
        print(report.table())
        if let svg {
            let attempts = Set(observations.map(\.attempt))
            // What the publication states, as the fit itself uses (never the policy's own code).
            let published = { (observation: DelayObservation) in
                Specification.seedDocuments.publishedDelay(
                    policy, afterFailures: observation.attempt, previous: observation.previous)
            }
            let stated = published(observations[0])
            let sameClaim = observations.allSatisfy { published($0) == stated }
            if sameClaim {
                // One stated distribution for every delay: draw the delays themselves.
                let delays = observations.map(\.delay)
                let title =
                    "\(policy), attempt \(attempts.count == 1 ? "\(observations[0].attempt)" : "≥ \(attempts.min() ?? 1)")"
                try StatsOptions.write(
                    DelayCharts.histogram(delays, stated: stated, title: title), named: "fit-histogram", into: svg)
                try StatsOptions.write(
                    DelayCharts.cumulative(delays, stated: stated, title: title), named: "fit-ecdf", into: svg)
            } else {
                let transforms = BackoffFit.pooledTransforms(observations, claim: policy, tolerance: tolerance)
                guard !transforms.isEmpty else { throw FitFailure("no continuous delays to draw for \(policy)") }
                let title = "\(policy): pooled U = F(delay)"
                try StatsOptions.write(
                    DelayCharts.transformHistogram(transforms, title: title), named: "fit-histogram", into: svg)
                try StatsOptions.write(
                    DelayCharts.transformCumulative(transforms, title: title), named: "fit-ecdf", into: svg)
            }
        }
        return report.accepted ? 0 : 2
    }
}

/// A failure with a message meant for the user as it stands.
struct FitFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
