import LiveConnectionSimulator
import Testing

@Suite("Virtual clock")
struct VirtualClockTests {
    @Test("virtual time jumps exactly to each deadline: 1.5 s then 2 s ends at 3500 ms")
    func jumpsToDeadlines() throws {
        let clock = VirtualClock()
        let result = Simulation.run(clock: clock) { () async throws -> [VirtualClock.Instant] in
            try await clock.sleep(for: .milliseconds(1500))
            let first = clock.now
            try await clock.sleep(for: .seconds(2))
            return [first, clock.now]
        }
        let instants = try result.get()
        #expect(instants.map(\.nanosecondsSinceStart) == [1_500_000_000, 3_500_000_000])
        #expect(result.finalTime == .start.advanced(by: .milliseconds(3500)))
        #expect(result.pendingSleepers == 0)
    }

    @Test("sleepers with equal deadlines wake in the order their sleeps began")
    func equalDeadlinesWakeInInsertionOrder() throws {
        let clock = VirtualClock()
        let log = EventLog()
        let deadline = VirtualClock.Instant.start.advanced(by: .seconds(5))
        let result = Simulation.run(clock: clock) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for sleeper in 0..<6 {
                    group.addTask {
                        log.record("sleep \(sleeper)")
                        try await clock.sleep(until: deadline)
                        log.record("wake \(sleeper)")
                    }
                }
                try await group.waitForAll()
            }
        }
        try result.get()
        let sleeps = log.entries.filter { $0.hasPrefix("sleep") }.map { $0.dropFirst(6) }
        let wakes = log.entries.filter { $0.hasPrefix("wake") }.map { $0.dropFirst(5) }
        #expect(sleeps.count == 6)
        #expect(wakes == sleeps, "wake order \(wakes) differs from sleep order \(sleeps)")
        #expect(result.finalTime == deadline)
    }

    @Test("cancelling a sleep removes it: the heap empties and time does not jump to its deadline")
    func cancellingRemovesTheSleeper() throws {
        let clock = VirtualClock()
        let result = Simulation.run(clock: clock) { () async throws -> (Int, Int) in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await clock.sleep(for: .seconds(100)) }
                try await clock.sleep(for: .seconds(1))
                let before = clock.sleeperCount
                group.cancelAll()
                let after = clock.sleeperCount
                let outcome = await group.nextResult()
                guard case .failure(let error) = outcome, error is CancellationError else {
                    Issue.record("the cancelled sleep did not throw CancellationError: \(String(describing: outcome))")
                    return (before, after)
                }
                return (before, after)
            }
        }
        let (before, after) = try result.get()
        #expect(before == 1)
        #expect(after == 0)
        #expect(clock.nextDeadline == nil)
        #expect(result.finalTime == .start.advanced(by: .seconds(1)))
    }

    @Test("sleeping in an already cancelled task throws at once and parks nothing")
    func sleepingWhenCancelledThrows() throws {
        let clock = VirtualClock()
        let result = Simulation.run(clock: clock) { () async -> Bool in
            await withTaskGroup(of: Bool.self) { group in
                group.cancelAll()
                group.addTask {
                    do {
                        try await clock.sleep(for: .seconds(9))
                        return false
                    } catch {
                        return error is CancellationError
                    }
                }
                return await group.next() ?? false
            }
        }
        #expect(try result.get())
        #expect(result.finalTime == .start)
        #expect(result.pendingSleepers == 0)
    }

    @Test("a zero or past sleep still suspends and wakes only after every ready job ran")
    func dueSleepsYieldToReadyJobs() throws {
        let clock = VirtualClock()
        let log = EventLog()
        let result = Simulation.run(clock: clock) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    log.record("A sleeps 0")
                    try await clock.sleep(for: .zero)
                    log.record("A woke")
                    try await clock.sleep(until: .start.advanced(by: .seconds(-3)))
                    log.record("A woke from the past")
                }
                group.addTask {
                    log.record("B1")
                    await Task.yield()
                    log.record("B2")
                    await Task.yield()
                    log.record("B3")
                }
                try await group.waitForAll()
            }
        }
        try result.get()
        #expect(log.entries == ["A sleeps 0", "B1", "B2", "B3", "A woke", "A woke from the past"])
        #expect(result.finalTime == .start)
    }

    @Test("advancing by hand wakes only the due sleepers and never moves time backwards")
    func manualAdvance() throws {
        let clock = VirtualClock()
        #expect(clock.advanceToNextDeadline() == nil)
        #expect(clock.advance(by: .seconds(2)) == 0)
        #expect(clock.now == .start.advanced(by: .seconds(2)))
        #expect(clock.advance(to: .start) == 0)
        #expect(clock.now == .start.advanced(by: .seconds(2)), "time went backwards")
    }

    @Test(
        "instants print as exact milliseconds",
        arguments: [
            (0, "0ms"), (3_500_000_000, "3500ms"), (1, "0.000001ms"), (1_500_000, "1.5ms"),
            (-2_250_000, "-2.25ms"),
        ] as [(Int64, String)])
    func instantDescription(nanoseconds: Int64, expected: String) {
        #expect(VirtualClock.Instant(nanosecondsSinceStart: nanoseconds).description == expected)
    }

    @Test("instant arithmetic is exact and saturates instead of trapping")
    func instantArithmetic() {
        let a = VirtualClock.Instant.start.advanced(by: .nanoseconds(7))
        #expect(a.duration(to: .start.advanced(by: .seconds(1))) == .nanoseconds(999_999_993))
        #expect(VirtualClock.Instant.max.advanced(by: .seconds(1)) == .max)
        #expect(a + .milliseconds(1) == .start.advanced(by: .nanoseconds(1_000_007)))
        #expect(VirtualClock().minimumResolution == .nanoseconds(1))
    }
}
