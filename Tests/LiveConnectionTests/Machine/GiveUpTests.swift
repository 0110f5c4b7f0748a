import Testing

@testable import LiveConnection

/// The opt-in attempt limit: give up after N consecutive failures, start over on connect(to:).
@Suite("Machine: giving up after N attempts")
struct GiveUpTests {
    @Test("the Nth consecutive failure stops with a reason that says so; nothing stays armed", arguments: [1, 2, 5])
    func givesUp(limit: Int) throws {
        var driver = MachineDriver(.with { $0.maximumAttempts = limit })
        driver.handle(.connect(.primary))
        for attempt in 1...limit {
            #expect(driver.phase == .connecting(attempt: attempt))
            let effects = driver.handle(.connectFailed(try driver.live, .refused))
            if attempt < limit {
                #expect(driver.state == .waiting(reason: "error ECONNREFUSED"))
                _ = try driver.fire(.retry)
            } else {
                #expect(effects.phases == [.stopped(reason: "gave up after \(limit) attempts")])
                #expect(effects.retryDelays.isEmpty)
            }
        }
        #expect(driver.armed.isEmpty, "armed after giving up: \(driver.armed.map(\.timer))")
        #expect(!driver.machine.wanted)
        #expect(driver.machine.generation == Generation(UInt64(limit)), "exactly \(limit) attempts were made")
    }

    @Test("connect(to:) starts over with a fresh count")
    func connectStartsOver() throws {
        var driver = MachineDriver(.with { $0.maximumAttempts = 2 })
        driver.handle(.connect(.primary))
        driver.handle(.connectFailed(1, .refused))
        _ = try driver.fire(.retry)
        driver.handle(.connectFailed(2, .refused))
        #expect(driver.phase == .stopped(reason: "gave up after 2 attempts"))
        driver.handle(.connect(.primary))
        #expect(driver.phase == .connecting(attempt: 1))
        driver.handle(.connectFailed(3, .refused))
        #expect(driver.state == .waiting(reason: "error ECONNREFUSED"))
    }

    @Test("an open in between resets the count: only consecutive failures count")
    func openResets() throws {
        var driver = MachineDriver(.with { $0.maximumAttempts = 2 })
        driver.handle(.connect(.primary))
        driver.handle(.connectFailed(1, .refused))
        _ = try driver.fire(.retry)
        driver.open(2)
        driver.handle(.failed(2, .reset(errno: "ECONNRESET")))
        #expect(driver.state == .waiting(reason: "error ECONNRESET"), "one failure since the open, not two")
        _ = try driver.fire(.retry)
        driver.handle(.connectFailed(3, .refused))
        #expect(driver.phase == .stopped(reason: "gave up after 2 attempts"))
    }

    @Test("drops, missed heartbeats and failed refreshes count like failed handshakes")
    func everyFailureCounts() throws {
        var driver = MachineDriver(.with { $0.maximumAttempts = 1 })
        try driver.connectAndOpen()
        driver.handle(.failed(1, .reset(errno: "ECONNRESET")))
        #expect(driver.phase == .stopped(reason: "gave up after 1 attempts"))
    }

    @Test("without a limit (the default) the machine retries forever")
    func defaultRetriesForever() throws {
        var driver = MachineDriver()
        driver.handle(.connect(.primary))
        for _ in 0..<200 {
            driver.handle(.connectFailed(try driver.live, .refused))
            _ = try driver.fire(.retry)
        }
        #expect(driver.phase == .connecting(attempt: 201))
        #expect(driver.machine.wanted)
    }
}
