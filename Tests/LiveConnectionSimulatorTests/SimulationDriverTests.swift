import LiveConnectionSimulator
import Testing

import typealias LiveConnection.Mutex

@Suite("Simulation driver")
struct SimulationDriverTests {
    @Test("a body waiting on a stream nobody feeds ends as deadlocked instead of hanging")
    func detectsDeadlock() throws {
        let clock = VirtualClock()
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        let result = Simulation.run(clock: clock) { () async -> Int in
            try? await clock.sleep(for: .seconds(3))
            var received = 0
            for await _ in stream { received += 1 }
            return received
        }
        withExtendedLifetime(continuation) {}
        #expect(!result.bodyFinished)
        #expect(result.finalTime == .start.advanced(by: .seconds(3)))
        #expect(throws: SimulationError.deadlocked(at: .start.advanced(by: .seconds(3)), pendingSleepers: 0)) {
            try result.get()
        }
    }

    @Test("the time limit stops virtual time exactly there and cancels the body")
    func timeLimitCancels() {
        let clock = VirtualClock()
        let log = EventLog()
        let result = Simulation.run(strategy: .random(seed: 9), clock: clock, until: .seconds(10)) {
            while true {
                try await clock.sleep(for: .milliseconds(3000))
                log.record("tick \(clock.now)")
            }
        }
        #expect(result.timeLimitReached)
        #expect(result.finalTime == .start.advanced(by: .seconds(10)))
        #expect(log.entries == ["tick 3000ms", "tick 6000ms", "tick 9000ms"])
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(result.pendingSleepers == 0)
    }

    @Test("a body that finishes before the limit is not cancelled")
    func limitNotReached() throws {
        let clock = VirtualClock()
        let result = Simulation.run(clock: clock, until: .seconds(10)) {
            try await clock.sleep(for: .seconds(10))
            return "done"
        }
        #expect(try result.get() == "done")
        #expect(!result.timeLimitReached)
    }

    @Test("a body that waits forever after the limit's cancellation is reported deadlocked at the limit")
    func deadlockAfterLimit() {
        let clock = VirtualClock()
        // A cancelled task's stream iteration ends at once, so wait on a continuation
        // that nobody will ever resume: cancellation cannot reach it.
        let forgotten = Mutex<[UnsafeContinuation<Void, Never>]>([])
        let result = Simulation.run(clock: clock, until: .seconds(5)) {
            try? await clock.sleep(for: .seconds(60))
            await withUnsafeContinuation { continuation in forgotten.withLock { $0.append(continuation) } }
        }
        #expect(forgotten.withLock { $0.count } == 1)
        #expect(result.timeLimitReached)
        #expect(!result.bodyFinished)
        #expect(result.finalTime == .start.advanced(by: .seconds(5)))
    }

    @Test("the deadlock error names the usual causes: a real sleep or clock, an unstructured task")
    func deadlockNamesLikelyCause() {
        let clock = VirtualClock()
        let forgotten = Mutex<[UnsafeContinuation<Void, Never>]>([])
        let result = Simulation.run(clock: clock) {
            await withUnsafeContinuation { continuation in forgotten.withLock { $0.append(continuation) } }
        }
        #expect(throws: SimulationError.deadlocked(at: .start, pendingSleepers: 0)) { try result.get() }
        let message = SimulationError.deadlocked(at: .start, pendingSleepers: 0).description
        for cause in ["Task.sleep", "ContinuousClock", "Task {}", "Task.detached", "VirtualClock", "task group"] {
            #expect(message.contains(cause), "\(message)")
        }
    }

    @Test("a livelock that never lets time advance stops at the job limit")
    func jobLimitStopsLivelock() {
        let clock = VirtualClock()
        let result = Simulation.run(strategy: .random(seed: 4), clock: clock, until: .seconds(1), jobLimit: 500) {
            while true { await Task.yield() }
        }
        #expect(result.jobsRun == 500)
        #expect(!result.timeLimitReached)
        #expect(throws: SimulationError.exceededJobLimit(jobsRun: 500, at: .start)) { try result.get() }
    }

    @Test("a revised job limit replaces the first one where it is asked (every 1,024 jobs)")
    func revisedJobLimitStopsEarlier() {
        let clock = VirtualClock()
        var asked: [Int] = []
        let result = Simulation.run(
            strategy: .random(seed: 4), clock: clock, until: .seconds(1), jobLimit: 100_000,
            revisedJobLimit: { jobs in
                asked.append(jobs)
                return jobs >= 2048 ? 3000 : nil
            }
        ) {
            while true { await Task.yield() }
        }
        #expect(asked == [1024, 2048])
        #expect(result.jobsRun == 3000)
        #expect(throws: SimulationError.exceededJobLimit(jobsRun: 3000, at: .start)) { try result.get() }
    }

    @Test("a limit is measured from the clock's time when the run starts")
    func limitIsRelative() {
        let clock = VirtualClock(startingAt: .start.advanced(by: .seconds(100)))
        let result = Simulation.run(clock: clock, until: .seconds(1)) {
            try await clock.sleep(for: .seconds(5))
        }
        #expect(result.timeLimitReached)
        #expect(result.finalTime == .start.advanced(by: .seconds(101)))
    }
}
