import Testing

@testable import LiveConnection

/// Credentials before every connect (issue 12 item 4): the provider is part of each attempt,
/// so an expiry needs no refresh of its own.
@Suite("Machine: credentials before every connect")
struct CredentialsTimingTests {
    static func configuration(limit: Int? = nil) throws -> ConnectionConfiguration {
        var configuration = ConnectionConfiguration.with {
            $0.backoff = .table()
            $0.credentialsTiming = .beforeEveryConnect
        }
        try configuration.limitAttempts(to: limit)
        return configuration
    }

    static func proveItself(_ driver: inout MachineDriver, _ g: Generation) throws {
        try driver.fire(.heartbeat(g))
        driver.handle(.pong(g))
    }

    @Test("4001 on a proven connection reconnects at once, with no refresh of its own")
    func expiryReconnectsAtOnce() throws {
        var driver = MachineDriver(try Self.configuration())
        try driver.connectAndOpen()
        try Self.proveItself(&driver, 1)
        let effects = driver.handle(.closedByPeer(1, code: .tokenExpired, reason: "token expired"))
        #expect(!effects.contains(.refreshCredentials), "\(effects)")
        #expect(effects.contains { if case .openConnection(2, _) = $0 { true } else { false } }, "\(effects)")
        #expect(effects.phases == [.connecting(attempt: 2)])
        #expect(!driver.machine.refreshInFlight)
    }

    @Test("HTTP 401 again and again: each attempt fetched fresh credentials that did not help, so the waits grow")
    func unauthorizedBacksOff() throws {
        var driver = MachineDriver(try Self.configuration())
        driver.handle(.connect(.primary))
        // After the k-th 401 the wait is the table's delay for k − 1 failures: 0 (at once), 1 s, 2 s, 4 s.
        #expect(driver.handle(.connectFailed(1, .handshakeRejected(status: 401))).phases == [.connecting(attempt: 2)])
        for expected in [1, 2, 4] {
            let effects = driver.handle(.connectFailed(try driver.live, .handshakeRejected(status: 401)))
            #expect(effects.retryDelays == [.seconds(expected)])
            #expect(effects.phases == [.waiting(reason: "handshake 401", delay: .seconds(expected))])
            try driver.fire(.retry)
        }
        #expect(!driver.log.contains(.refreshCredentials))
    }

    @Test("a provider that fails fails its attempt: backoff with the reason 'credentials unavailable'")
    func providerFailureIsAFailure() throws {
        var driver = MachineDriver(try Self.configuration())
        driver.handle(.connect(.primary))
        let effects = driver.handle(.connectFailed(1, .credentialsUnavailable("keychain locked")))
        #expect(effects.phases == [.waiting(reason: "credentials unavailable", delay: .seconds(1))])
        #expect(try driver.fire(.retry).phases == [.connecting(attempt: 2)])
    }

    @Test("the attempt limit counts expiries like any failure")
    func limitCountsExpiries() throws {
        var driver = MachineDriver(try Self.configuration(limit: 2))
        driver.handle(.connect(.primary))
        driver.handle(.connectFailed(1, .handshakeRejected(status: 401)))  // 1: again at once
        let effects = driver.handle(.connectFailed(2, .handshakeRejected(status: 401)))
        #expect(effects.phases == [.stopped(reason: "gave up after 2 attempts")])
        #expect(driver.armed.isEmpty)
    }

    @Test("after an expiry the close frame rides in the wait, as with a refresh")
    func expiryKeepsTheClose() throws {
        var driver = MachineDriver(try Self.configuration())
        driver.handle(.connect(.primary))
        driver.open(1)
        driver.handle(.closedByPeer(1, code: .tokenExpired, reason: "expired"))  // unproven: at once
        driver.open(2)
        let effects = driver.handle(.closedByPeer(2, code: .tokenExpired, reason: "expired again"))
        #expect(
            effects.phases == [
                .waiting(
                    reason: "closed 4001", delay: .seconds(1),
                    close: CloseFrame(code: .tokenExpired, reason: "expired again"))
            ])
    }

    @Test("after expiry (the default) still refreshes once, then reconnects")
    func defaultStillRefreshes() throws {
        var driver = MachineDriver(.with { $0.backoff = .table() })
        try driver.connectAndOpen()
        #expect(driver.handle(.closedByPeer(1, code: .tokenExpired, reason: "")).contains(.refreshCredentials))
    }
}
