import Testing

@testable import LiveConnection

/// The open phase carries the attempt that succeeded (issue 12 item 7).
@Suite("Machine: the attempt that opened the connection")
struct AttemptCountTests {
    @Test("a first try that succeeds reports open on attempt 1")
    func firstTry() throws {
        var driver = MachineDriver()
        let effects = try driver.connectAndOpen()
        #expect(effects.phases == [.open(attempt: 1)])
        #expect(driver.phase == .open(attempt: 1))
    }

    @Test(
        "after N failed attempts the open phase reports attempt N + 1, the number connecting showed",
        arguments: [1, 3, 6])
    func afterFailures(failed: Int) throws {
        var driver = MachineDriver(.with { $0.backoff = .table() })
        driver.handle(.connect(.primary))
        try driver.failAttempts(failed)
        let reconnecting = try driver.fire(.retry)
        #expect(reconnecting.phases == [.connecting(attempt: failed + 1)])
        #expect(driver.open(try driver.live).phases == [.open(attempt: failed + 1)])
    }

    @Test("the open phase keeps its attempt for as long as the connection lasts: pings, pongs, messages, commands")
    func keptWhileOpen() throws {
        var driver = MachineDriver(.with { $0.backoff = .table() })
        driver.handle(.connect(.primary))
        try driver.failAttempts(2)
        try driver.fire(.retry)
        let g = try driver.live
        driver.open(g)
        driver.advance(by: driver.machine.configuration.heartbeatInterval)  // a ping
        driver.handle(.pong(g))
        driver.handle(.received(g, .payload, sequence: 1))
        driver.handle(.send(1))
        driver.handle(.sendCompleted(g, 1))
        #expect(driver.phase == .open(attempt: 3), "state \(driver.state)")
    }

    @Test(
        "a drop counts as a failure: the reconnect that opens is attempt 2, then 1 again after connect(to:) starts over"
    )
    func afterDrop() throws {
        var driver = MachineDriver(.with { $0.backoff = .table() })
        try driver.connectAndOpen()
        try driver.reset()
        try driver.fire(.retry)
        #expect(driver.open(try driver.live).phases == [.open(attempt: 2)])
        driver.handle(.connect(.secondary))  // a new destination starts the count over
        #expect(driver.open(try driver.live).phases == [.open(attempt: 1)])
    }
}
