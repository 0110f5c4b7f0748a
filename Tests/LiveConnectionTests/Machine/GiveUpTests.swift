import Testing

@testable import LiveConnection

/// The opt-in attempt limit: give up after N failures since a connection last proved itself
/// (answered a heartbeat) — the backoff's own count, so one rule says when to wait longer and
/// when to give up — and start over on connect(to:).
@Suite("Machine: giving up after N attempts")
struct GiveUpTests {
    @Test("the Nth consecutive failure stops with a reason that says so; nothing stays armed", arguments: [1, 2, 5])
    func givesUp(limit: Int) throws {
        var driver = MachineDriver(try .limited(to: limit))
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
        var driver = MachineDriver(try .limited(to: 2))
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

    @Test("an open that proves nothing does not reset the count: a server that accepts then closes is given up on")
    func openAloneKeepsCount() throws {
        var driver = MachineDriver(try .limited(to: 3))
        driver.handle(.connect(.primary))
        for _ in 1...2 {
            driver.open(try driver.live)
            driver.handle(.closedByPeer(try driver.live, code: .internalError, reason: "bye"))
            #expect(
                driver.state == .waiting(reason: "closed 1011", close: CloseFrame(code: .internalError, reason: "bye")))
            _ = try driver.fire(.retry)
        }
        driver.open(try driver.live)
        driver.handle(.closedByPeer(try driver.live, code: .internalError, reason: "bye"))
        #expect(
            driver.phase
                == .stopped(reason: "gave up after 3 attempts", close: CloseFrame(code: .internalError, reason: "bye")),
            "three opens that each closed at once")
    }

    @Test("a connection that answered a heartbeat resets the count, as it resets the backoff")
    func proofResetsCount() throws {
        var driver = MachineDriver(try .limited(to: 2))
        driver.handle(.connect(.primary))
        driver.handle(.connectFailed(1, .refused))
        _ = try driver.fire(.retry)
        driver.open(2)
        try driver.fire(.heartbeat(2))
        driver.handle(.pong(2))
        driver.handle(.failed(2, .reset(errno: "ECONNRESET")))
        #expect(driver.state == .waiting(reason: "error ECONNRESET"), "one failure since the proof, not two")
        _ = try driver.fire(.retry)
        driver.handle(.connectFailed(3, .refused))
        #expect(driver.phase == .stopped(reason: "gave up after 2 attempts"))
    }

    @Test(
        "a limit below 1 is refused with the reason, and the configuration keeps its limit",
        arguments: [0, -1, Int.min])
    func refusesLimitBelowOne(limit: Int) throws {
        var configuration = try ConnectionConfiguration.limited(to: 4)
        #expect(
            throws: ConfigurationError.outOfRange(
                "maximumAttempts", value: limit, range: "at least 1, or nil for no limit")
        ) {
            try configuration.limitAttempts(to: limit)
        }
        #expect(configuration.maximumAttempts == 4)
        #expect(
            "\(ConfigurationError.outOfRange("maximumAttempts", value: 0, range: "at least 1"))"
                == "maximumAttempts 0 is out of range: at least 1")
        try configuration.limitAttempts(to: nil)
        #expect(configuration.maximumAttempts == nil)
    }

    @Test("drops, missed heartbeats and failed refreshes count like failed handshakes")
    func everyFailureCounts() throws {
        var driver = MachineDriver(try .limited(to: 1))
        try driver.connectAndOpen()
        driver.handle(.failed(1, .reset(errno: "ECONNRESET")))
        #expect(driver.phase == .stopped(reason: "gave up after 1 attempts"))
    }

    @Test("an expiry refreshed after it counts too: a server that answers 401 to every handshake is given up on")
    func refreshedExpiriesCount() throws {
        var driver = MachineDriver(try .limited(to: 2))
        driver.handle(.connect(.primary))
        let first = driver.handle(.connectFailed(1, .handshakeRejected(status: 401)))
        #expect(first.contains(.refreshCredentials), "the first expiry refreshes")
        driver.handle(.credentialsRefreshed(succeeded: true))
        #expect(driver.phase == .connecting(attempt: 2))
        let second = driver.handle(.connectFailed(2, .handshakeRejected(status: 401)))
        #expect(second.phases == [.stopped(reason: "gave up after 2 attempts")])
        #expect(!second.contains(.refreshCredentials), "no refresh after giving up")
        #expect(driver.armed.isEmpty)
        #expect(driver.machine.generation == Generation(2), "two attempts, not a third with fresh credentials")
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

extension ConnectionConfiguration {
    /// The default configuration with an attempt limit.
    static func limited(to limit: Int) throws -> ConnectionConfiguration {
        var configuration = ConnectionConfiguration()
        try configuration.limitAttempts(to: limit)
        return configuration
    }
}
