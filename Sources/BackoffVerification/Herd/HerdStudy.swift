public import LiveConnection
public import Statistics

/// The herd experiments over the four policies of the AWS blog, as tables and charts.
///
/// ```swift
/// let rows = HerdStudy.contention(clientCounts: [10, 100], seeds: [1, 2, 3])
/// print(HerdStudy.contentionTable(rows))
/// let outages = HerdStudy.reconnect(connections: 1000, seed: 1)
/// try HerdStudy.reconnectChart(outages).svg().write(toFile: "reconnect.svg", atomically: true, encoding: .utf8)
/// ```
public enum HerdStudy {
    /// A policy with the name the tables print.
    public struct NamedPolicy: Sendable {
        /// The name printed in tables and legends.
        public var name: String
        /// The policy itself.
        public var policy: BackoffPolicy
        /// A named policy.
        public init(name: String, policy: BackoffPolicy) {
            self.name = name
            self.policy = policy
        }
    }

    /// The blog's four contenders with the given base and cap.
    public static func policies(base: Duration, cap: Duration) -> [NamedPolicy] {
        [
            NamedPolicy(name: "no jitter", policy: .exponential(base: base, cap: cap)),
            NamedPolicy(name: "full jitter", policy: .fullJitter(base: base, cap: cap)),
            NamedPolicy(name: "equal jitter", policy: .equalJitter(base: base, cap: cap)),
            NamedPolicy(name: "decorrelated jitter", policy: .decorrelatedJitter(base: base, cap: cap)),
        ]
    }

    /// The blog's setting: base 5 ms, cap 2 s.
    public static let contentionPolicies = policies(base: .milliseconds(5), cap: .seconds(2))
    /// A reconnecting fleet's setting: base 1 s, cap 30 s (the library's defaults).
    public static let reconnectPolicies = policies(base: .seconds(1), cap: .seconds(30))

    /// One cell of the contention table: means over the seeds.
    public struct ContentionRow: Sendable, Equatable {
        /// The policy name.
        public var policy: String
        /// N, the contending clients.
        public var clients: Int
        /// Mean conditional writes sent, over the seeds.
        public var meanCalls: Double
        /// Mean time until the last write succeeded.
        public var meanCompletion: Duration
        /// How many seeds the means are over.
        public var seeds: Int
    }

    /// Runs the contention experiment for every policy and client count, averaged over seeds.
    public static func contention(
        clientCounts: [Int], seeds: [UInt64], policies: [NamedPolicy] = contentionPolicies
    ) -> [ContentionRow] {
        var rows: [ContentionRow] = []
        for clients in clientCounts {
            for named in policies {
                var calls = 0.0
                var completion: Int64 = 0
                for seed in seeds {
                    let outcome = ContentionExperiment(clients: clients, policy: named.policy, seed: seed).run()
                    calls += Double(outcome.calls)
                    completion += outcome.completion.nanoseconds
                }
                rows.append(
                    ContentionRow(
                        policy: named.name, clients: clients, meanCalls: calls / Double(seeds.count),
                        meanCompletion: .nanoseconds(completion / Int64(seeds.count)), seeds: seeds.count))
            }
        }
        return rows
    }

    /// Markdown: one row per client count, calls and completion time per policy.
    public static func contentionTable(_ rows: [ContentionRow]) -> String {
        let names = orderedNames(rows.map(\.policy))
        var lines = [
            "| clients | " + names.map { "\($0): calls" }.joined(separator: " | ") + " | "
                + names.map { "\($0): time" }.joined(separator: " | ") + " |"
        ]
        lines.append("|---:|" + String(repeating: "---:|", count: 2 * names.count))
        for clients in orderedNames(rows.map { "\($0.clients)" }) {
            let cells = rows.filter { "\($0.clients)" == clients }
            let calls = names.map { name in
                cells.first { $0.policy == name }.map { $0.meanCalls.formatted(digits: 0) } ?? ""
            }
            let times = names.map { name in
                cells.first { $0.policy == name }.map { secondsText($0.meanCompletion.seconds) } ?? ""
            }
            lines.append(
                "| \(clients) | " + calls.joined(separator: " | ") + " | " + times.joined(separator: " | ") + " |")
        }
        return lines.joined(separator: "\n")
    }

    /// Calls (or completion time) against the number of clients, one line per policy.
    public static func contentionChart(_ rows: [ContentionRow], completion: Bool) -> Chart {
        var chart = Chart(
            title: completion ? "Time until every client has written (mean)" : "Total calls by all clients (mean)",
            xLabel: "contending clients", yLabel: completion ? "completion time (s)" : "calls")
        for name in orderedNames(rows.map(\.policy)) {
            let points = rows.filter { $0.policy == name }.map {
                Chart.Point(Double($0.clients), completion ? $0.meanCompletion.seconds : $0.meanCalls)
            }
            chart.add(.line(points, label: name))
        }
        return chart
    }

    /// The outage experiment for every policy (1 s base, 30 s cap unless given).
    public static func reconnect(
        connections: Int, seed: UInt64, outage: Duration = .seconds(10), capacity: Int = 100,
        policies: [NamedPolicy] = reconnectPolicies
    ) -> [(name: String, outcome: ReconnectExperiment.Outcome)] {
        policies.map { named in
            (
                named.name,
                ReconnectExperiment(
                    connections: connections, policy: named.policy, outage: outage, capacity: capacity, seed: seed
                ).run()
            )
        }
    }

    /// Markdown: attempts, overload refusals, peak rate and reconnection times per policy.
    public static func reconnectTable(_ outcomes: [(name: String, outcome: ReconnectExperiment.Outcome)]) -> String {
        var lines = [
            "| policy | attempts | refused (overload) | peak attempts/s after the outage | 50 % back | 99 % back | all back |",
            "|---|---:|---:|---:|---:|---:|---:|",
        ]
        for (name, outcome) in outcomes {
            lines.append(
                "| \(name) | \(outcome.attempts) | \(outcome.overloaded) | \(outcome.peakAttemptRate.formatted(digits: 0)) | "
                    + "\(secondsText(outcome.halfReconnected.seconds)) | \(secondsText(outcome.mostReconnected.seconds)) | "
                    + "\(secondsText(outcome.allReconnected.seconds)) |")
        }
        return lines.joined(separator: "\n")
    }

    /// Reconnect attempts per second over time after the drop, one line per policy.
    ///
    /// The time axis runs until `horizon`, by default until the slowest policy had every
    /// connection back (plus one bin), so no policy's tail is cut off.
    public static func reconnectChart(
        _ outcomes: [(name: String, outcome: ReconnectExperiment.Outcome)], until horizon: Duration? = nil
    ) -> Chart {
        let horizon = horizon ?? outcomes.map { $0.outcome.allReconnected + $0.outcome.bin }.max()
        var chart = Chart(
            title: "Reconnect attempts after an outage drops every connection",
            xLabel: "time since the drop (s)", yLabel: "attempts per second")
        for (name, outcome) in outcomes {
            let width = outcome.bin.seconds
            var points: [Chart.Point] = []
            for (index, attempts) in outcome.attemptsPerBin.enumerated() {
                let start = Double(index) * width
                if let horizon, start > horizon.seconds { break }
                points.append(.init(start + width / 2, Double(attempts) / width))
            }
            chart.add(.line(points, label: name))
        }
        return chart
    }

    /// Names in first-seen order (stable, unlike a Set).
    static func orderedNames(_ names: [String]) -> [String] {
        var seen: [String] = []
        for name in names where !seen.contains(name) { seen.append(name) }
        return seen
    }
}
