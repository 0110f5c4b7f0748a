import Testing

@testable import LiveConnection

/// Terminal close codes stop for good; 4001 refreshes the credentials once, then reconnects.
@Suite("Machine: close codes and credential refresh")
struct CloseCodeTests {
    @Test(
        "a terminal close code stops without a retry and forgets the intent",
        arguments: [CloseCode.policyViolation, .forbidden])
    func terminalCodesStop(code: CloseCode) throws {
        var driver = MachineDriver()
        try driver.connectAndOpen()
        let effects = driver.handle(.closedByPeer(1, code: code, reason: "go away"))
        #expect(
            effects.phases == [.stopped(reason: "closed \(code)", close: CloseFrame(code: code, reason: "go away"))])
        #expect(effects.retryDelays.isEmpty)
        #expect(driver.armed.isEmpty, "nothing left to fire: \(driver.armed.map(\.timer))")
        #expect(!driver.machine.wanted)
    }

    @Test("terminal close codes are configurable")
    func terminalCodesConfigurable() throws {
        var driver = MachineDriver(.with { $0.terminalCloseCodes = [4010] })
        try driver.connectAndOpen()
        driver.handle(.closedByPeer(1, code: 4010, reason: "banned"))
        #expect(driver.phase == .stopped(reason: "closed 4010", close: CloseFrame(code: 4010, reason: "banned")))
        var other = MachineDriver(.with { $0.terminalCloseCodes = [4010] })
        try other.connectAndOpen()
        other.handle(.closedByPeer(1, code: .forbidden, reason: "no longer terminal"))
        #expect(
            other.state
                == .waiting(reason: "closed 4003", close: CloseFrame(code: .forbidden, reason: "no longer terminal")))
    }

    @Test("a 403 handshake is terminal; a 503 is retried")
    func handshakeStatuses() {
        var driver = MachineDriver()
        driver.handle(.connect(.primary))
        driver.handle(.connectFailed(1, .handshakeRejected(status: 403)))
        #expect(driver.phase == .stopped(reason: "handshake 403"))
        #expect(driver.armed.isEmpty)
        var other = MachineDriver()
        other.handle(.connect(.primary))
        other.handle(.connectFailed(1, .handshakeRejected(status: 503)))
        #expect(other.state == .waiting(reason: "handshake 503"))
    }

    @Test(
        "after stopping, nothing but a report happens until connect(to:)",
        arguments: [CloseCode.policyViolation, .forbidden])
    func nothingAfterStopped(code: CloseCode) throws {
        var driver = MachineDriver()
        driver.handle(.subscribe("loans"))
        try driver.connectAndOpen()
        driver.handle(.closedByPeer(1, code: code, reason: "go away"))
        let inputs: [Input] = [
            .setForeground(false), .setForeground(true), .subscribe("holds"), .unsubscribe("loans"),
            .timerFired(.retry), .credentialsRefreshed(succeeded: true), .disconnect(),
            .failed(1, .refused), .received(1, .payload, sequence: 3),
        ]
        for input in inputs {
            let effects = driver.handle(input)
            #expect(effects.allSatisfy { if case .report = $0 { true } else { false } }, "\(input) → \(effects)")
        }
        #expect(driver.handle(.connect(.primary)).opened == [2])
    }

    @Test("4001 refreshes the credentials, then reconnects at once")
    func tokenExpiredRefreshes() throws {
        var driver = MachineDriver()
        try driver.connectAndOpen()
        let effects = driver.handle(.closedByPeer(1, code: .tokenExpired, reason: "expired"))
        #expect(effects.filter { $0 == .refreshCredentials }.count == 1)
        #expect(
            effects.phases == [
                .waiting(reason: "closed 4001", delay: .zero, close: CloseFrame(code: .tokenExpired, reason: "expired"))
            ])
        #expect(effects.retryDelays.isEmpty)
        let refreshed = driver.handle(.credentialsRefreshed(succeeded: true))
        #expect(refreshed.opened == [2])
        #expect(driver.machine.wanted)
    }

    @Test("a 401 handshake refreshes the credentials like 4001")
    func handshake401Refreshes() {
        var driver = MachineDriver()
        driver.handle(.connect(.primary))
        let effects = driver.handle(.connectFailed(1, .handshakeRejected(status: 401)))
        #expect(effects.contains(.refreshCredentials))
        #expect(driver.state == .refreshing(reason: "handshake 401"))
    }

    @Test("however many triggers arrive, one refresh runs")
    func oneRefreshForManyTriggers() throws {
        var driver = MachineDriver()
        try driver.connectAndOpen()
        driver.handle(.closedByPeer(1, code: .tokenExpired, reason: "expired"))
        // The same connection's other ways of ending, and the user poking, while refreshing.
        driver.handle(.failed(1, .reset(errno: "ECONNRESET")))
        driver.handle(.closedByPeer(1, code: .tokenExpired, reason: "expired again"))
        driver.handle(.connect(.primary))
        driver.handle(.setForeground(false))
        driver.handle(.setForeground(true))
        #expect(driver.log.filter { $0 == .refreshCredentials }.count == 1)
        #expect(
            driver.state
                == .refreshing(reason: "closed 4001", close: CloseFrame(code: .tokenExpired, reason: "expired")))
    }

    @Test("a refresh still running when 4001 strikes again after a reconnect is not started twice")
    func noConcurrentRefresh() throws {
        var driver = MachineDriver()
        try driver.connectAndOpen()
        driver.handle(.closedByPeer(1, code: .tokenExpired, reason: "expired"))
        // The user gives up on the slow refresh and reconnects; the token is still stale.
        driver.handle(.disconnect())
        try driver.connectAndOpen()
        driver.handle(.closedByPeer(2, code: .tokenExpired, reason: "expired"))
        #expect(driver.log.filter { $0 == .refreshCredentials }.count == 1, "two refreshes in flight at once")
        // The one refresh finishing completes the second wait too.
        #expect(driver.handle(.credentialsRefreshed(succeeded: true)).opened == [3])
        // A later expiry starts a new refresh.
        driver.open(3)
        driver.handle(.closedByPeer(3, code: .tokenExpired, reason: "expired"))
        #expect(driver.log.filter { $0 == .refreshCredentials }.count == 2)
    }

    @Test("a failed refresh backs off like any failure")
    func failedRefreshBacksOff() throws {
        var driver = MachineDriver(.with { $0.backoff = .table() })
        try driver.connectAndOpen()
        driver.handle(.closedByPeer(1, code: .tokenExpired, reason: "expired"))
        let effects = driver.handle(.credentialsRefreshed(succeeded: false))
        #expect(
            effects.phases == [
                .waiting(
                    reason: "credentials refresh failed", delay: .seconds(2),
                    close: CloseFrame(code: .tokenExpired, reason: "expired"))
            ])
        #expect(effects.retryDelays == [.seconds(2)])
    }

    @Test("tokens that keep expiring without an open in between back off instead of hot-looping")
    func repeatedExpiryBacksOff() throws {
        var driver = MachineDriver(.with { $0.backoff = .table() })
        driver.handle(.connect(.primary))
        driver.handle(.connectFailed(1, .handshakeRejected(status: 401)))
        #expect(
            driver.handle(.credentialsRefreshed(succeeded: true)).opened == [2], "the first refresh reconnects at once")
        driver.handle(.connectFailed(2, .handshakeRejected(status: 401)))
        let second = driver.handle(.credentialsRefreshed(succeeded: true))
        #expect(second.retryDelays == [.seconds(1)])
        #expect(second.opened.isEmpty)
    }

    @Test("a refresh that finishes in the background lands in the background, still wanted")
    func refreshFinishingInBackground() throws {
        var driver = MachineDriver()
        try driver.connectAndOpen()
        driver.handle(.closedByPeer(1, code: .tokenExpired, reason: "expired"))
        driver.handle(.setForeground(false))
        let effects = driver.handle(.credentialsRefreshed(succeeded: true))
        #expect(effects == [.report(.backgrounded)])
        #expect(driver.machine.wanted)
        #expect(driver.handle(.setForeground(true)).opened == [2])
    }

    @Test("disconnecting during a refresh stops; the refresh's completion is ignored")
    func disconnectDuringRefresh() throws {
        var driver = MachineDriver()
        try driver.connectAndOpen()
        driver.handle(.closedByPeer(1, code: .tokenExpired, reason: "expired"))
        driver.handle(.disconnect())
        #expect(driver.handle(.credentialsRefreshed(succeeded: true)).isEmpty)
        #expect(driver.phase == .stopped(reason: "disconnected"))
    }
}
