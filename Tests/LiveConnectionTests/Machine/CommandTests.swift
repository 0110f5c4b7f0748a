import Testing

@testable import LiveConnection

/// Outgoing commands: sent at most once, on the current connection; every caller hears
/// exactly one outcome; nothing is ever resent on its own.
@Suite("Machine: commands")
struct CommandTests {
    @Test(
        "with no open connection a command is answered 'not connected' and nothing is sent",
        arguments: SetupState.allCases.filter { $0 != .open && $0 != .openAwaitingPong })
    func notConnected(setup: SetupState) throws {
        var driver = try setup.make()
        let before = driver.machine
        #expect(driver.handle(.send(9)) == [.completeCommand(9, .notConnected)])
        #expect(driver.machine == before, "a refused command must not linger")
    }

    @Test("on an open connection a command is sent once and answered 'sent' when the transport takes it")
    func sentOnce() throws {
        var driver = MachineDriver()
        try driver.connectAndOpen()
        #expect(driver.handle(.send(1)) == [.send(1, .command(1))])
        #expect(driver.machine.commandsInFlight == [1])
        #expect(driver.handle(.sendCompleted(1, 1)) == [.completeCommand(1, .sent)])
        #expect(driver.handle(.sendCompleted(1, 1)).isEmpty, "a second completion is not a second answer")
        #expect(driver.machine.commandsInFlight.isEmpty)
    }

    @Test(
        "a command in flight when the connection ends is answered 'outcome unknown' and never resent",
        arguments: [
            Input.failed(1, .reset(errno: "ECONNRESET")), .closedByPeer(1, code: .normal, reason: "bye"),
            .closedByPeer(1, code: .tokenExpired, reason: "expired"), .closedByPeer(1, code: .forbidden, reason: "no"),
            .disconnect(), .setForeground(false), .connect(.secondary),
        ])
    func inFlightWhenDropped(ending: Input) throws {
        var driver = MachineDriver(.with { $0.backoff = .table() })
        try driver.connectAndOpen()
        driver.handle(.send(1))
        driver.handle(.send(2))
        driver.handle(.sendCompleted(1, 1))
        let effects = driver.handle(ending)
        #expect(effects.completions == [2: [.outcomeUnknown]])
        #expect(driver.machine.commandsInFlight.isEmpty)
        // Whatever happens next, command 2 is never sent again and never answered again.
        driver.handle(.sendCompleted(1, 2))
        driver.handle(.connect(.primary))
        driver.handle(.setForeground(true))
        if let g = driver.machine.liveGeneration { driver.open(g) }
        let resent = driver.log.filter { if case .send(_, .command(2)) = $0 { true } else { false } }
        #expect(resent.count == 1)
        #expect(driver.log.completions[2] == [.outcomeUnknown])
    }

    @Test("a missed heartbeat answers the commands in flight 'outcome unknown'")
    func heartbeatMissAnswersInFlight() throws {
        var driver = MachineDriver()
        try driver.connectAndOpen()
        driver.handle(.send(5))
        try driver.fire(.heartbeat(1))
        let effects = try driver.fire(.pongDeadline(1))
        #expect(effects.completions == [5: [.outcomeUnknown]])
    }

    @Test("commands are answered in the order they were sent when a connection ends")
    func answersInOrder() throws {
        var driver = MachineDriver()
        try driver.connectAndOpen()
        for id: CommandID in [3, 1, 2] { driver.handle(.send(id)) }
        let effects = try driver.reset()
        let answered = effects.compactMap { if case .completeCommand(let id, _) = $0 { id } else { nil } }
        #expect(answered == [3, 1, 2])
    }

    @Test("a command sent on a connection opened after a drop goes on the new generation")
    func sendsOnCurrentConnection() throws {
        var driver = MachineDriver()
        try driver.connectAndOpen()
        try driver.reset()
        try driver.fire(.retry)
        driver.open(2)
        #expect(driver.handle(.send(4)) == [.send(2, .command(4))])
    }
}
