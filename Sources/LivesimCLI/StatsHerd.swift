import BackoffVerification
import Foundation
import LiveConnection
import Statistics

/// `livesim stats herd`: the AWS blog's contention experiment and an outage's reconnect storm.
enum StatsHerd {
    static func parse(_ arguments: inout Arguments) throws(ArgumentError) -> Command.Invocation {
        let clientCounts = try arguments.integers("--clients", in: 1...1000, count: 1...20) ?? [10, 25, 50, 100, 200]
        let seedCount = try arguments.integer("--seeds", in: 1...100, default: 5)
        let firstSeed = try arguments.seed("--seed") ?? 1
        let connections = try arguments.integer("--connections", in: 1...100_000, default: 1000)
        let outage = try arguments.duration("--outage", in: .zero...(.seconds(3600)), default: .seconds(10))
        let capacity = try arguments.integer("--capacity", in: 1...1_000_000, default: 100)
        let svg = try arguments.option("--svg")
        try arguments.finish()
        guard firstSeed <= UInt64.max - UInt64(seedCount) else {
            throw .conflict("--seed \(firstSeed) leaves no room for \(seedCount) seeds below 2^64")
        }
        return {
            try run(
                clientCounts: clientCounts, seeds: Array(firstSeed..<firstSeed + UInt64(seedCount)),
                connections: connections, outage: outage, capacity: capacity, svg: svg)
        }
    }

    private static func run(
        clientCounts: [Int], seeds: [UInt64], connections: Int, outage: Duration, capacity: Int, svg: String?
    ) throws -> Int32 {
        let firstSeed = seeds[0]
        print(
            "Contention (AWS 2015): base 5 ms, cap 2 s, one-way latency 4.5–5.5 ms; means over seeds \(seeds.first!)–\(seeds.last!)"
        )
        print("calls = conditional writes sent by all clients; time = until the last client's write succeeded\n")
        // One client count at a time, so a long run shows progress (the cost grows with the count).
        let progress = ProgressLine("contention: ran", unit: "client counts", total: clientCounts.count)
        var rows: [HerdStudy.ContentionRow] = []
        for (index, clients) in clientCounts.enumerated() {
            progress.update(index)
            rows += HerdStudy.contention(clientCounts: [clients], seeds: seeds)
        }
        progress.finish(clientCounts.count)
        print(HerdStudy.contentionTable(rows))
        print(
            "\nOutage: \(connections) connections dropped at t = 0, server down for \(outage.seconds.compact()) s, then admits \(capacity)/s;"
        )
        print(
            "base 1 s, cap 30 s; clients are ConnectionMachines (the drop is a failure: the first retry waits one delay); seed \(firstSeed)\n"
        )
        // One policy at a time, for the same reason.
        let policies = HerdStudy.reconnectPolicies
        let outageProgress = ProgressLine("outage: ran", unit: "policies", total: policies.count)
        var outcomes: [(name: String, outcome: ReconnectExperiment.Outcome)] = []
        for (index, policy) in policies.enumerated() {
            outageProgress.update(index)
            outcomes += HerdStudy.reconnect(
                connections: connections, seed: firstSeed, outage: outage, capacity: capacity, policies: [policy])
        }
        outageProgress.finish(policies.count)
        print(HerdStudy.reconnectTable(outcomes))
        if let svg {
            try StatsOptions.write(
                HerdStudy.contentionChart(rows, completion: false), named: "herd-contention-calls", into: svg)
            try StatsOptions.write(
                HerdStudy.contentionChart(rows, completion: true), named: "herd-contention-time", into: svg)
            try StatsOptions.write(
                HerdStudy.reconnectChart(outcomes), named: "herd-reconnect-rate", into: svg)
        }
        return 0
    }
}
