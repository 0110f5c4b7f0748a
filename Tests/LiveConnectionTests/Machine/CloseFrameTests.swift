import Testing

@testable import LiveConnection

/// The waiting and stopped phases carry the server's close frame, typed (issue 12 item 1).
@Suite("Machine: the server's close frame in the phases")
struct CloseFrameTests {
    @Test("a retryable close waits with its code and the server's reason, typed and in the reason string")
    func retryableClose() throws {
        var driver = MachineDriver(.with { $0.backoff = .table() })
        try driver.connectAndOpen()
        let effects = driver.handle(.closedByPeer(1, code: .internalError, reason: "restarting"))
        let close = CloseFrame(code: .internalError, reason: "restarting")
        #expect(driver.state == .waiting(reason: "closed 1011", close: close))
        #expect(effects.phases == [.waiting(reason: "closed 1011", delay: .seconds(1), close: close)])
        #expect(effects.phases.first?.description == #"waiting 1000ms reason="closed 1011" close=1011 "restarting""#)
    }

    @Test("a terminal close stops with the server's close frame")
    func terminalClose() throws {
        var driver = MachineDriver()
        try driver.connectAndOpen()
        let effects = driver.handle(.closedByPeer(1, code: .forbidden, reason: "account suspended"))
        #expect(
            effects.phases == [
                .stopped(reason: "closed 4003", close: CloseFrame(code: .forbidden, reason: "account suspended"))
            ])
    }

    @Test("a refresh after 4001 shows the close while refreshing, and keeps it when the refresh fails")
    func refreshKeepsTheClose() throws {
        var driver = MachineDriver(.with { $0.backoff = .table() })
        try driver.connectAndOpen()
        let close = CloseFrame(code: .tokenExpired, reason: "token expired")
        let refreshing = driver.handle(.closedByPeer(1, code: .tokenExpired, reason: "token expired"))
        #expect(refreshing.phases == [.waiting(reason: "closed 4001", delay: .zero, close: close)])
        driver.handle(.credentialsRefreshed(succeeded: false))
        #expect(driver.state == .waiting(reason: "credentials refresh failed", close: close))
        #expect(driver.phase.closeFrameForTest == .some(close))
    }

    @Test("giving up after a close keeps the last close frame")
    func giveUpKeepsTheClose() throws {
        var configuration = ConnectionConfiguration()
        try configuration.limitAttempts(to: 1)
        var driver = MachineDriver(configuration)
        try driver.connectAndOpen()
        let effects = driver.handle(.closedByPeer(1, code: .internalError, reason: "overloaded"))
        #expect(
            effects.phases == [
                .stopped(
                    reason: "gave up after 1 attempts", close: CloseFrame(code: .internalError, reason: "overloaded"))
            ])
    }

    @Test(
        "failures without a close frame carry none: reset, handshake status, connect timeout, missed heartbeat, disconnect"
    )
    func noCloseFrame() throws {
        var driver = MachineDriver(.with { $0.backoff = .table() })
        driver.handle(.connect(.primary))
        #expect(
            driver.handle(.connectFailed(1, .handshakeRejected(status: 503))).phases.first?.closeFrameForTest
                == .some(nil))
        try driver.fire(.retry)
        #expect(try driver.fire(.connectTimeout(2)).phases.first?.closeFrameForTest == .some(nil))
        try driver.fire(.retry)
        driver.open(3)
        #expect(try driver.reset().phases.first?.closeFrameForTest == .some(nil))
        try driver.fire(.retry)
        driver.open(4)
        try driver.fire(.heartbeat(4))
        #expect(try driver.fire(.pongDeadline(4)).phases.first?.closeFrameForTest == .some(nil))
        #expect(driver.handle(.disconnect()).phases == [.stopped(reason: "disconnected", close: nil)])
    }

    @Test("the close belongs to the wait: the next attempt's phases carry none, and a later reset clears it")
    func closeDoesNotOutliveItsWait() throws {
        var driver = MachineDriver(.with { $0.backoff = .table() })
        try driver.connectAndOpen()
        driver.handle(.closedByPeer(1, code: .goingAway, reason: "deploy"))
        #expect(try driver.fire(.retry).phases == [.connecting(attempt: 2)])
        driver.handle(.failed(2, .refused))
        #expect(driver.state == .waiting(reason: "error ECONNREFUSED", close: nil))
    }
}

extension Phase {
    /// The close frame of a waiting or stopped phase (`.some(nil)`: such a phase without one;
    /// nil: another phase).
    var closeFrameForTest: CloseFrame?? {
        switch self {
        case .waiting(_, _, let close), .stopped(_, let close): .some(close)
        case .idle, .connecting, .open, .backgrounded, .offline: nil
        }
    }
}
