import BackoffVerification
import Foundation
import LiveConnection
import Statistics

/// `livesim stats herd`: the AWS blog's contention experiment and an outage's reconnect storm.
enum StatsHerd {
    static func run(_ arguments: inout Arguments) throws -> Int32 {
        let clientCounts =
            try arguments.option(
                "--clients",
                parse: { text -> [Int]? in
                    let values = text.split(separator: ",").map { Int($0) }
                    return values.isEmpty || values.contains(where: { ($0 ?? 0) < 1 }) ? nil : values.compactMap { $0 }
                }) ?? [10, 25, 50, 100, 200]
        let seedCount = try arguments.option("--seeds", parse: { UInt64($0).flatMap { $0 >= 1 ? $0 : nil } }) ?? 5
        let firstSeed = try arguments.option("--seed", parse: { UInt64($0) }) ?? 1
        let connections =
            try arguments.option("--connections", parse: { Int($0).flatMap { $0 >= 1 ? $0 : nil } }) ?? 1000
        let outage = try arguments.option("--outage", parse: DelayFile.parseDuration) ?? .seconds(10)
        let capacity = try arguments.option("--capacity", parse: { Int($0).flatMap { $0 >= 1 ? $0 : nil } }) ?? 100
        let svg = try arguments.option("--svg")
        try arguments.finish()

        let seeds = Array(firstSeed..<(firstSeed + seedCount))
        print(
            "Contention (AWS 2015): base 5 ms, cap 2 s, one-way latency 4.5–5.5 ms; means over seeds \(seeds.first!)–\(seeds.last!)"
        )
        print("calls = conditional writes sent by all clients; time = until the last client's write succeeded\n")
        let rows = HerdStudy.contention(clientCounts: clientCounts, seeds: seeds)
        print(HerdStudy.contentionTable(rows))
        print(
            "\nOutage: \(connections) connections dropped at t = 0, server down for \(outage.seconds.compact()) s, then admits \(capacity)/s;"
        )
        print("base 1 s, cap 30 s; first retry immediate; seed \(firstSeed)\n")
        let outcomes = HerdStudy.reconnect(
            connections: connections, seed: firstSeed, outage: outage, capacity: capacity)
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
