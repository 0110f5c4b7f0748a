import Testing

@testable import LiveConnection

/// The app's ping (issue 12 item 6): alive, no answer within T, or failed — exactly once,
/// even when the connection dies meanwhile (seed 004's once-gate).
@Suite("Machine: app pings, answered exactly once")
struct PingTests {
    static let timeout = Duration.seconds(2)

    static func pings(in effects: [Effect]) -> [PingOutcome] {
        effects.compactMap { if case .completePing(_, let outcome) = $0 { outcome } else { nil } }
    }

    @Test("with no open connection a ping fails at once, 'not connected', and nothing is sent")
    func notOpen() throws {
        var driver = MachineDriver()
        #expect(driver.handle(.ping(1, timeout: Self.timeout)) == [.completePing(1, .failed(.notConnected))])
        driver.handle(.connect(.primary))
        driver.handle(.opened(1))  // resubscribing: not open to the app yet
        #expect(driver.handle(.ping(2, timeout: Self.timeout)) == [.completePing(2, .failed(.notConnected))])
        #expect(!driver.log.contains { if case .sendPing = $0 { true } else { false } })
    }

    @Test("on an open connection a ping is sent with its deadline; the answer is 'alive', once")
    func alive() throws {
        var driver = MachineDriver()
        try driver.connectAndOpen()
        #expect(
            driver.handle(.ping(1, timeout: Self.timeout)) == [
                .sendPing(1, 1), .startTimer(.pingDeadline(1), Self.timeout),
            ])
        #expect(driver.machine.pingsInFlight == [1])
        #expect(driver.handle(.pingAnswered(1, 1)) == [.cancelTimer(.pingDeadline(1)), .completePing(1, .alive)])
        #expect(driver.handle(.pingAnswered(1, 1)).isEmpty, "a second answer changes nothing")
        #expect(driver.machine.pingsInFlight.isEmpty)
        #expect(driver.phase == .open(attempt: 1))
    }

    @Test("no answer by the deadline is 'no answer', once; the late pong changes nothing and the connection stays")
    func noAnswer() throws {
        var driver = MachineDriver()
        try driver.connectAndOpen()
        driver.handle(.ping(1, timeout: Self.timeout))
        #expect(try driver.fire(.pingDeadline(1)) == [.completePing(1, .noAnswer)])
        #expect(driver.handle(.pingAnswered(1, 1)).isEmpty)
        #expect(driver.phase == .open(attempt: 1), "a ping without an answer is the app's to judge")
        #expect(!driver.log.contains { if case .closeConnection = $0 { true } else { false } })
    }

    @Test(
        "a connection that ends with pings in flight answers each 'connection ended' once, disarming its deadline",
        arguments: [
            Input.failed(1, .reset(errno: "ECONNRESET")), .closedByPeer(1, code: .internalError, reason: "bye"),
            .closedByPeer(1, code: .forbidden, reason: "bye"), .closedByPeer(1, code: .tokenExpired, reason: "bye"),
            .disconnect(), .setForeground(false), .connect(.secondary),
        ])
    func connectionEnds(ending: Input) throws {
        var driver = MachineDriver()
        try driver.connectAndOpen()
        driver.handle(.ping(1, timeout: Self.timeout))
        driver.handle(.ping(2, timeout: .seconds(5)))
        let effects = driver.handle(ending)
        #expect(
            effects.filter { if case .completePing = $0 { true } else { false } } == [
                .completePing(1, .failed(.connectionEnded)), .completePing(2, .failed(.connectionEnded)),
            ])
        #expect(!driver.isArmed(.pingDeadline(1)) && !driver.isArmed(.pingDeadline(2)))
        #expect(driver.handle(.pingAnswered(1, 1)).isEmpty, "the dead connection's late pong changes nothing")
        #expect(
            driver.handle(.timerFired(.pingDeadline(2))).isEmpty, "a deadline that raced its cancel changes nothing")
    }

    @Test("a missed heartbeat ends the connection and the pings riding it")
    func heartbeatMissed() throws {
        var driver = MachineDriver()
        try driver.connectAndOpen()
        try driver.fire(.heartbeat(1))
        driver.handle(.ping(1, timeout: .seconds(60)))
        #expect(Self.pings(in: try driver.fire(.pongDeadline(1))) == [.failed(.connectionEnded)])
    }

    @Test("pings are answered independently, in whatever order their answers come")
    func independent() throws {
        var driver = MachineDriver()
        try driver.connectAndOpen()
        driver.handle(.ping(1, timeout: Self.timeout))
        driver.handle(.ping(2, timeout: Self.timeout))
        #expect(Self.pings(in: driver.handle(.pingAnswered(1, 2))) == [.alive])
        #expect(Self.pings(in: try driver.fire(.pingDeadline(1))) == [.noAnswer])
        #expect(driver.machine.pingsInFlight.isEmpty)
    }

    @Test("a ping's answer from an older generation is stale: it changes nothing, even with the same id in flight")
    func staleAnswer() throws {
        var driver = MachineDriver()
        try driver.connectAndOpen()
        driver.handle(.connect(.secondary))
        driver.open(2)
        driver.handle(.ping(1, timeout: Self.timeout))
        let before = driver.machine
        #expect(driver.handle(.pingAnswered(1, 1)).isEmpty)
        #expect(driver.machine == before)
    }
}
