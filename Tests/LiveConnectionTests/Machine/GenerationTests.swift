import Testing

@testable import LiveConnection

/// Generation fencing: inputs from a connection that is no longer the live one change
/// nothing; a late open of an abandoned attempt is closed.
@Suite("Machine: generations and stale inputs")
struct GenerationTests {
    /// Every kind of input that names a generation, for a given (stale) generation.
    enum StaleInput: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case opened, connectFailed, received, receivedWithSequence, pong, closedByPeer, closedTerminal,
            closedTokenExpired, failed, sendCompleted, flushed, connectTimeout, heartbeat, pongDeadline

        var testDescription: String { rawValue }

        func input(_ g: Generation) -> Input {
            switch self {
            case .opened: .opened(g)
            case .connectFailed: .connectFailed(g, .handshakeRejected(status: 401))
            case .received: .received(g, .payload, sequence: nil)
            case .receivedWithSequence: .received(g, .payload, sequence: 99)
            case .pong: .pong(g)
            case .closedByPeer: .closedByPeer(g, code: .normal, reason: "late")
            case .closedTerminal: .closedByPeer(g, code: .forbidden, reason: "late")
            case .closedTokenExpired: .closedByPeer(g, code: .tokenExpired, reason: "late")
            case .failed: .failed(g, .reset(errno: "ECONNRESET"))
            case .sendCompleted: .sendCompleted(g, 1)
            case .flushed: .flushed(g)
            case .connectTimeout: .timerFired(.connectTimeout(g))
            case .heartbeat: .timerFired(.heartbeat(g))
            case .pongDeadline: .timerFired(.pongDeadline(g))
            }
        }
    }

    @Test(
        "an input from a stale generation leaves the machine unchanged; only a late open is answered, by closing it",
        arguments: StaleInput.allCases, SetupState.allCases)
    func staleInputsChangeNothing(kind: StaleInput, setup: SetupState) throws {
        var driver = try setup.make()
        // A command in flight on the live connection, so a stale completion could wrongly answer it.
        if case .open = driver.state { driver.handle(.send(1)) }
        // Generation 1 is stale in every setup but idle, where 0 (never minted) stands in.
        let stale: Generation = setup == .idle ? 0 : 1
        #expect(driver.machine.liveGeneration != stale)
        let before = driver.machine
        let effects = driver.handle(kind.input(stale))
        #expect(driver.machine == before, "state \(before.state) → \(driver.machine.state)")
        if kind == .opened {
            #expect(effects == [.closeConnection(stale, code: .normal, reason: "stale connection")])
        } else {
            #expect(effects.isEmpty, "\(effects)")
        }
    }

    @Test("a late close of the previous connection does not touch the new one (socket.io-client 533)")
    func lateCloseOfOldConnection() throws {
        var driver = MachineDriver()
        try driver.connectAndOpen()
        driver.handle(.connect(.secondary))  // generation 2 replaces 1
        driver.open(2)
        let before = driver.machine
        #expect(driver.handle(.closedByPeer(1, code: .goingAway, reason: "late onclose")).isEmpty)
        #expect(driver.handle(.failed(1, .reset(errno: "EPIPE"))).isEmpty)
        #expect(driver.machine == before)
        #expect(driver.phase == .open(attempt: 1))
    }

    @Test("an abandoned attempt that opens late is closed, so two sockets never live at once")
    func lateOpenIsClosed() throws {
        var driver = MachineDriver(.with { $0.backoff = .table() })
        driver.handle(.connect(.primary))
        driver.advance(by: .seconds(10))  // connect timeout: generation 1 abandoned
        try driver.fire(.retry)  // generation 2 connecting
        let effects = driver.handle(.opened(1))
        #expect(effects == [.closeConnection(1, code: .normal, reason: "stale connection")])
        #expect(driver.state == .connecting(2))
    }

    @Test("a repeated open of the live connection changes nothing and does not close it", arguments: [false, true])
    func duplicateOpenOfLiveConnection(flushed: Bool) throws {
        var driver = MachineDriver()
        driver.handle(.connect(.primary))
        driver.handle(.opened(1))
        if flushed { driver.handle(.flushed(1)) }
        let before = driver.machine
        let effects = driver.handle(.opened(1))
        #expect(effects.isEmpty, "closing the live connection while keeping it would strand the machine: \(effects)")
        #expect(driver.machine == before)
    }

    @Test("every attempt mints a new generation, one above the last")
    func generationsIncrease() throws {
        var driver = MachineDriver(.with { $0.backoff = .table() })
        driver.handle(.connect(.primary))
        try driver.failAttempts(3)
        try driver.fire(.retry)
        driver.open(4)
        driver.handle(.setForeground(false))
        driver.handle(.setForeground(true))
        driver.handle(.connect(.secondary))
        #expect(driver.log.opened == [1, 2, 3, 4, 5, 6])
    }

    @Test("connection timers carry their generation: a fire for the previous connection cannot tear down the new one")
    func timersAreGenerationScoped() throws {
        var driver = MachineDriver()
        try driver.connectAndOpen()
        try driver.fire(.heartbeat(1))
        try driver.reset()
        try driver.fire(.retry)
        driver.open(2)
        try driver.fire(.heartbeat(2))
        let before = driver.machine
        // The old deadline racing its cancel: must not be taken for generation 2's.
        #expect(driver.handle(.timerFired(.pongDeadline(1))).isEmpty)
        #expect(driver.machine == before)
    }
}
