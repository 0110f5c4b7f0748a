import LiveConnectionSimulator
import Testing

@Suite("Simulation executor")
struct SimulationExecutorTests {
    @Test("actor hops, task group children, stream consumers and clock sleeps all run on the driver thread")
    func everyJobRunsOnTheDriverThread() throws {
        let clock = VirtualClock()
        let threads = ThreadLog()
        let driver = currentThreadID()
        let counter = Counter()
        let result = Simulation.run(strategy: .random(seed: 11), clock: clock) { () async throws -> Int in
            threads.here("root")
            let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
            return try await withThrowingTaskGroup(of: Int.self) { group in
                group.addTask {
                    threads.here("consumer start")
                    var sum = 0
                    for await value in stream {
                        threads.here("consumer got \(value)")
                        sum += value
                    }
                    return sum
                }
                group.addTask {
                    for value in 1...3 {
                        try await clock.sleep(for: .milliseconds(10))
                        threads.here("producer woke \(value)")
                        let total = await counter.increment(by: value)
                        threads.here("after actor hop \(total)")
                        continuation.yield(value)
                    }
                    continuation.finish()
                    return 0
                }
                var total = 0
                for try await part in group { total += part }
                threads.here("root end")
                return total
            }
        }
        #expect(try result.get() == 6)
        #expect(threads.places.count >= 11, "too few observations: \(threads.places)")
        #expect(threads.placesOff(driver) == [], "jobs escaped the driver thread")
        #expect(result.finalTime == .start.advanced(by: .milliseconds(30)))
    }

    @Test("an actor and an AsyncStream producer/consumer deliver every item in order")
    func actorAndStream() throws {
        let clock = VirtualClock()
        let log = EventLog()
        let counter = Counter()
        let result = Simulation.run(strategy: .random(seed: 5), clock: clock) {
            let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await item in stream {
                        _ = await counter.increment(log: log, as: "consumed \(item) total ")
                    }
                }
                group.addTask {
                    for item in 1...5 {
                        log.record("produced \(item)")
                        continuation.yield(item)
                        await Task.yield()
                    }
                    continuation.finish()
                }
            }
            return await counter.value
        }
        #expect(try result.get() == 5)
        let consumed = log.entries.filter { $0.hasPrefix("consumed") }
        #expect(consumed == (1...5).map { "consumed \($0) total \($0)" })
    }

    @Test("the runner counts jobs and counts a choice only when two or more jobs were ready")
    func countsJobsAndChoices() throws {
        let clock = VirtualClock()
        let executor = SimulationExecutor()
        let sequential = Simulation.run(strategy: .random(seed: 1), clock: clock, executor: executor) {
            for _ in 0..<5 { try await clock.sleep(for: .seconds(1)) }
        }
        try sequential.get()
        #expect(sequential.jobsRun >= 6)
        #expect(sequential.schedulingChoices == 0, "one task alone never offers a choice")
        #expect(executor.jobsRun == sequential.jobsRun)
        #expect(!executor.hasReadyJobs)

        let log = EventLog()
        let concurrent = Simulation.run(strategy: .random(seed: 1), clock: VirtualClock()) {
            await interleavingProgram(log: log)
        }
        try concurrent.get()
        #expect(concurrent.schedulingChoices > 0)
    }

    @Test("FIFO runs ready jobs in arrival order: yielding workers alternate strictly")
    func fifoAlternates() throws {
        let log = EventLog()
        let result = Simulation.run(strategy: .fifo, clock: VirtualClock()) {
            await withTaskGroup(of: Void.self) { group in
                for worker in ["a", "b"] {
                    group.addTask {
                        for step in 0..<3 {
                            log.record("\(worker)\(step)")
                            await Task.yield()
                        }
                    }
                }
            }
        }
        try result.get()
        #expect(log.entries == ["a0", "b0", "a1", "b1", "a2", "b2"])
    }

    @Test("a task group with two sleeping children and cancelAll ends at the cancel time")
    func groupCancelAll() throws {
        let clock = VirtualClock()
        let log = EventLog()
        let result = Simulation.run(strategy: .random(seed: 3), clock: clock) {
            await withTaskGroup(of: Void.self) { group in
                for (name, seconds) in [("heartbeat", 25), ("receive", 40)] {
                    group.addTask {
                        do {
                            try await clock.sleep(for: .seconds(seconds))
                            log.record("\(name) woke")
                        } catch {
                            log.record("\(name) cancelled at \(clock.now)")
                        }
                    }
                }
                try? await clock.sleep(for: .seconds(2))
                group.cancelAll()
            }
        }
        try result.get()
        #expect(log.entries.sorted() == ["heartbeat cancelled at 2000ms", "receive cancelled at 2000ms"])
        #expect(result.finalTime == .start.advanced(by: .seconds(2)))
        #expect(clock.sleeperCount == 0)
    }
}
