import Testing

@testable import LiveConnection

/// The network path (issue 12 item 5): while the app reports it unviable, no attempt is
/// made and no failure counted; when it returns, the machine connects at once.
@Suite("Machine: network path")
struct PathTests {
    @Test("losing the path while waiting cancels the retry and reports offline, without counting a failure")
    func waitingGoesOffline() throws {
        var driver = MachineDriver(.with { $0.backoff = .table() })
        driver.handle(.connect(.primary))
        try driver.failAttempts(2)
        #expect(driver.machine.failures == 2)
        let effects = driver.handle(.setPathViable(false))
        #expect(effects == [.cancelTimer(.retry), .report(.offline)])
        #expect(driver.state == .offline)
        #expect(driver.machine.failures == 2)
        // However long the outage, nothing is armed and nothing is attempted.
        #expect(driver.advance(by: .seconds(3600)).isEmpty)
    }

    @Test("the path's return connects at once, counting the attempts as before the outage")
    func returnConnectsAtOnce() throws {
        var driver = MachineDriver(.with { $0.backoff = .table() })
        driver.handle(.connect(.primary))
        try driver.failAttempts(2)
        driver.handle(.setPathViable(false))
        let effects = driver.handle(.setPathViable(true))
        #expect(effects.phases == [.connecting(attempt: 3)])
        #expect(effects.opened == [3])
        #expect(driver.isArmed(.connectTimeout(3)))
        // Still the backoff's rules: the next failure waits the delay for three failures (table: 4 s).
        driver.handle(.failed(3, .refused))
        #expect(driver.deadline(of: .retry) == driver.now + .seconds(4))
    }

    @Test("an attempt in flight when the path goes is abandoned, not counted, and restarted when it returns")
    func attemptInFlightIsAbandoned() throws {
        for opened in [false, true] {
            var driver = MachineDriver()
            driver.handle(.connect(.primary))
            if opened { driver.handle(.opened(1)) }  // resubscribing: not open yet either
            let effects = driver.handle(.setPathViable(false))
            #expect(effects.contains(.closeConnection(1, code: .goingAway, reason: "network path lost")))
            #expect(effects.phases == [.offline])
            #expect(!driver.isArmed(.connectTimeout(1)))
            #expect(driver.machine.failures == 0)
            #expect(driver.handle(.setPathViable(true)).phases == [.connecting(attempt: 1)])
        }
    }

    @Test("an open connection is kept when the path goes, but must answer a ping within T")
    func openConnectionIsProbed() throws {
        var driver = MachineDriver()
        try driver.connectAndOpen()
        let effects = driver.handle(.setPathViable(false))
        #expect(effects == [.ping(1), .startTimer(.pongDeadline(1), .seconds(10))])
        #expect(driver.phase == .open(attempt: 1))
        // It answers: kept, and the path's report changes nothing more.
        driver.handle(.pong(1))
        #expect(driver.phase == .open(attempt: 1))
        // It dies with the path: torn down at T, offline, nothing counted or drawn.
        driver.handle(.timerFired(.heartbeat(1)))
        let death = driver.advance(by: .seconds(10))
        #expect(death.closed == [1])
        #expect(death.phases == [.offline])
        #expect(death.retryDelays.isEmpty)
        #expect(driver.machine.failures == 0)
    }

    @Test("the path's return probes an open connection that may have died during the outage")
    func returnProbesOpenConnection() throws {
        var driver = MachineDriver()
        try driver.connectAndOpen()
        driver.handle(.setPathViable(false))
        driver.handle(.pong(1))
        #expect(driver.handle(.setPathViable(true)) == [.ping(1), .startTimer(.pongDeadline(1), .seconds(10))])
        // A probe already unanswered is the probe: nothing new.
        #expect(driver.handle(.setPathViable(false)).isEmpty)
    }

    @Test(
        "without a path, every failure that would back off goes offline instead, drawing nothing",
        arguments: [
            Input.failed(1, .reset(errno: "ECONNRESET")), .closedByPeer(1, code: .internalError, reason: "bye"),
            .closedByPeer(1, code: .normal, reason: "bye"),
        ])
    func failuresWithoutPathGoOffline(input: Input) throws {
        var driver = MachineDriver()
        try driver.connectAndOpen()
        driver.handle(.setPathViable(false))
        let effects = driver.handle(input)
        #expect(effects.phases == [.offline])
        #expect(effects.retryDelays.isEmpty)
        #expect(driver.machine.failures == 0)
        #expect(driver.machine.lastDelay == nil)
    }

    @Test("without a path, a terminal close still stops: the server's word wins")
    func terminalCloseStillStops() throws {
        var driver = MachineDriver()
        try driver.connectAndOpen()
        driver.handle(.setPathViable(false))
        driver.handle(.closedByPeer(1, code: .forbidden, reason: "banned"))
        #expect(driver.phase == .stopped(reason: "closed 4003", close: CloseFrame(code: .forbidden, reason: "banned")))
        // And the path's return does not revive it.
        #expect(driver.handle(.setPathViable(true)).isEmpty)
    }

    @Test("the attempt limit is not spent while the path is unviable")
    func attemptLimitNotSpent() throws {
        var configuration = ConnectionConfiguration()
        try configuration.limitAttempts(to: 2)
        var driver = MachineDriver(configuration)
        driver.handle(.connect(.primary))
        driver.handle(.failed(1, .refused))  // 1 of 2
        driver.handle(.setPathViable(false))
        #expect(!driver.isArmed(.retry))
        #expect(driver.state == .offline)
        driver.handle(.setPathViable(true))
        driver.handle(.setPathViable(false))  // the attempt abandoned: not a failure
        driver.handle(.setPathViable(true))
        #expect(driver.phase == .connecting(attempt: 2))
    }

    @Test("connect(to:), the foreground and a refresh read the path: offline instead of an attempt")
    func intentsReadThePath() throws {
        var driver = MachineDriver()
        driver.handle(.setPathViable(false))
        #expect(driver.handle(.connect(.primary)) == [.report(.offline)])
        // A new destination while offline: remembered, connected to when the path returns.
        #expect(driver.handle(.connect(.secondary)).isEmpty)
        driver.handle(.setForeground(false))
        #expect(driver.phase == .backgrounded)
        #expect(driver.handle(.setForeground(true)) == [.report(.offline)])
        let back = driver.handle(.setPathViable(true))
        #expect(back.contains(.openConnection(1, .secondary)))

        var refreshing = MachineDriver()
        refreshing.handle(.connect(.primary))
        refreshing.handle(.closedByPeer(1, code: .tokenExpired, reason: "expired"))
        refreshing.handle(.setPathViable(false))
        #expect(refreshing.handle(.credentialsRefreshed(succeeded: true)) == [.report(.offline)])
        #expect(refreshing.handle(.setPathViable(true)).phases == [.connecting(attempt: 2)])
    }

    @Test("offline is left by disconnect, the background, and the path only")
    func leavingOffline() throws {
        var driver = MachineDriver()
        driver.handle(.connect(.primary))
        driver.handle(.setPathViable(false))
        #expect(driver.handle(.timerFired(.retry)).isEmpty)  // a fire racing its cancel
        #expect(driver.handle(.subscribe("news")).isEmpty)
        #expect(driver.handle(.send(3)) == [.completeCommand(3, .notConnected)])
        #expect(driver.handle(.ping(4, timeout: .seconds(1))) == [.completePing(4, .failed(.notConnected))])
        #expect(driver.state == .offline)
        driver.handle(.disconnect())
        #expect(driver.phase == .stopped(reason: "disconnected"))
        #expect(driver.handle(.setPathViable(true)).isEmpty)
    }

    @Test("a repeated report changes nothing")
    func repeatedReports() throws {
        var driver = MachineDriver()
        try driver.connectAndOpen()
        #expect(driver.handle(.setPathViable(true)).isEmpty)
        driver.handle(.setPathViable(false))
        let before = driver.machine
        #expect(driver.handle(.setPathViable(false)).isEmpty)
        #expect(driver.machine == before)
    }
}

extension PathTests {
    /// Found by the model checker (a precondition in the backoff: failures − 1 < 0): an expiry
    /// while the path was gone was not counted, and the refresh's answer after the path came
    /// back drew the delay for −1 failures.
    @Test("an expiry without a path is counted, so the refresh answered after the path's return draws a delay")
    func expiryWithoutPathThenReturn() throws {
        var driver = MachineDriver()
        try driver.connectAndOpen()
        driver.handle(.timerFired(.heartbeat(1)))
        driver.handle(.pong(1))  // proved: failures 0
        driver.handle(.setPathViable(false))
        driver.handle(.closedByPeer(1, code: .tokenExpired, reason: "expired"))
        #expect(driver.machine.failures == 1)
        driver.handle(.setPathViable(true))  // refreshing: the answer connects
        let effects = driver.handle(.credentialsRefreshed(succeeded: true))
        #expect(effects.phases == [.connecting(attempt: 2)])
    }

    /// Found while merging the checker's attempt judge with the path: the judges count an
    /// expiry retried with fresh credentials as a failure; the machine skipped it without a
    /// path, so the attempt after the path's return was numbered one low.
    @Test("with credentials before every connect, an expiry without a path is counted too")
    func expiryBeforeEveryConnectWithoutPath() throws {
        var configuration = ConnectionConfiguration()
        configuration.credentialsTiming = .beforeEveryConnect
        var driver = MachineDriver(configuration)
        try driver.connectAndOpen()
        driver.handle(.timerFired(.heartbeat(1)))
        driver.handle(.pong(1))  // proved: failures 0
        driver.handle(.setPathViable(false))
        #expect(driver.handle(.closedByPeer(1, code: .tokenExpired, reason: "expired")).phases == [.offline])
        #expect(driver.machine.failures == 1)
        #expect(driver.handle(.setPathViable(true)).phases == [.connecting(attempt: 2)])
    }
}
