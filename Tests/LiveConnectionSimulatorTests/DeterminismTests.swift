import Dispatch
import LiveConnection
import LiveConnectionSimulator
import Testing

import typealias LiveConnection.Mutex

@Suite("Deterministic scheduling")
struct DeterminismTests {
    static let strategies: [String] = ["random", "pct"]

    static func run(_ name: String, seed: UInt64) -> [String] {
        let log = EventLog()
        let clock = VirtualClock()
        let body: () async -> Void = { await interleavingProgram(log: log) }
        let result: SimulationResult<Void> =
            switch name {
            case "random": Simulation.run(strategy: .random(seed: seed), clock: clock, body)
            case "pct": Simulation.run(strategy: .pct(seed: seed, depth: 3, expectedSteps: 60), clock: clock, body)
            default: Simulation.run(strategy: .fifo, clock: clock, body)
            }
        #expect(result.bodyFinished)
        return log.entries
    }

    @Test("the same seed gives the identical interleaving twice", arguments: strategies, [0, 1, 42, 9_999] as [UInt64])
    func sameSeedSameLog(strategy: String, seed: UInt64) {
        let first = Self.run(strategy, seed: seed)
        let second = Self.run(strategy, seed: seed)
        #expect(first.count == 12)
        #expect(first == second)
    }

    @Test(
        "different seeds give different interleavings of a program whose output depends on them", arguments: strategies)
    func seedsChangeTheInterleaving(strategy: String) {
        let logs = Set((0..<16 as Range<UInt64>).map { Self.run(strategy, seed: $0).joined(separator: " ") })
        #expect(logs.count >= 4, "only \(logs.count) distinct interleavings over 16 seeds")
    }

    @Test("eight simulations of the same seed on eight threads produce identical logs")
    func parallelSimulationsAgree() {
        let logs = Mutex<[[String]]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let log = Self.run("random", seed: 2026)
            logs.withLock { $0.append(log) }
        }
        let all = logs.withLock { $0 }
        #expect(all.count == 8)
        #expect(Set(all.map { $0.joined(separator: " ") }).count == 1)
    }

    @Test("a PCT change point demotes the job that would have run")
    func pctDemotes() {
        for seed: UInt64 in 0..<50 {
            // Replay the strategy's draws: one change point at step 1, then two arrivals.
            var random = Xoshiro256StarStar(seed: seed)
            #expect(random.uniform(below: 1) == 0)
            let first = 2 + random.uniform(below: UInt64.max - 2)
            let second = 2 + random.uniform(below: UInt64.max - 2)
            var strategy = PCTScheduling(seed: seed, depth: 2, expectedSteps: 1)
            let pick = strategy.pick(readyCount: 2)
            #expect(pick == (first > second ? 1 : 0), "seed \(seed): ran the highest priority job at a change point")
            #expect(strategy.pick(readyCount: 1) == 0)
        }
    }

    @Test("PCT without change points always runs the highest priority ready job")
    func pctFollowsPriorities() {
        var strategy = PCTScheduling(seed: 5, depth: 1)
        var random = Xoshiro256StarStar(seed: 5)
        let priorities = (0..<4).map { _ in 1 + random.uniform(below: UInt64.max - 1) }
        var ready = Array(priorities.indices)
        var order: [Int] = []
        while !ready.isEmpty {
            order.append(ready.remove(at: strategy.pick(readyCount: ready.count)))
        }
        #expect(order == priorities.indices.sorted { priorities[$0] > priorities[$1] })
    }
}
