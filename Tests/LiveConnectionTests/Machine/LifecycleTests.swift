import Testing

@testable import LiveConnection

/// Attempts, failures, the connect timeout and the backoff between attempts.
@Suite("Machine: lifecycle and backoff")
struct LifecycleTests {
    @Test("a handshake that never completes is abandoned at the connect timeout and retried after a backoff")
    func connectTimeout() throws {
        var driver = MachineDriver(.with { $0.backoff = .table() })
        driver.handle(.connect(.primary))
        #expect(driver.deadline(of: .connectTimeout(1)) == .seconds(10))
        let effects = driver.advance(by: .seconds(10))
        #expect(effects.contains(.closeConnection(1, code: .normal, reason: "connect timeout")))
        #expect(effects.phases == [.waiting(reason: "connect timeout", delay: .seconds(1))])
        #expect(driver.state == .waiting(reason: "connect timeout"))
    }

    @Test("opening disarms the connect timeout")
    func openDisarmsConnectTimeout() throws {
        var driver = MachineDriver()
        try driver.connectAndOpen()
        #expect(!driver.isArmed(.connectTimeout(1)))
        #expect(driver.log.contains(.cancelTimer(.connectTimeout(1))))
    }

    @Test(
        "every way a connection fails waits with a reason that names it",
        arguments: [
            (Input.connectFailed(1, .reset(errno: "ECONNRESET")), "error ECONNRESET"),
            (.connectFailed(1, .handshakeRejected(status: 503)), "handshake 503"),
            (.connectFailed(1, .refused), "error ECONNREFUSED"),
        ] as [(Input, String)])
    func attemptFailureReasons(input: Input, reason: String) throws {
        var driver = MachineDriver(.with { $0.backoff = .table() })
        driver.handle(.connect(.primary))
        let effects = driver.handle(input)
        #expect(effects.phases == [.waiting(reason: reason, delay: .seconds(1))])
        #expect(effects.contains(.closeConnection(1, code: .normal, reason: reason)))
        #expect(effects.retryDelays == [.seconds(1)])
    }

    @Test(
        "an open connection that drops waits with a reason that names it",
        arguments: [
            (Input.failed(1, .reset(errno: "ECONNRESET")), "error ECONNRESET"),
            (.closedByPeer(1, code: .normal, reason: "bye"), "closed 1000"),
            (.closedByPeer(1, code: .goingAway, reason: "restart"), "closed 1001"),
            (.closedByPeer(1, code: .internalError, reason: "oops"), "closed 1011"),
        ] as [(Input, String)])
    func dropReasons(input: Input, reason: String) throws {
        var driver = MachineDriver(.with { $0.backoff = .table() })
        try driver.connectAndOpen()
        let effects = driver.handle(input)
        let close: CloseFrame? =
            if case .closedByPeer(_, let code, let text) = input { CloseFrame(code: code, reason: text) } else { nil }
        #expect(effects.phases == [.waiting(reason: reason, delay: .seconds(1), close: close)])
        #expect(effects.closed == [1])
        #expect(driver.machine.wanted)
    }

    @Test("the retry timer starts the next attempt on a new generation, counting attempts")
    func retryStartsNextAttempt() throws {
        var driver = MachineDriver(.with { $0.backoff = .table() })
        driver.handle(.connect(.primary))
        driver.handle(.connectFailed(1, .refused))
        let effects = try driver.fire(.retry)
        #expect(effects.phases == [.connecting(attempt: 2)])
        #expect(effects.opened == [2])
        #expect(driver.state == .connecting(2))
    }

    @Test("consecutive failures walk the table: 1, 2, 4, 8, 16, 30, 30 s")
    func failuresWalkTheTable() throws {
        var driver = MachineDriver(.with { $0.backoff = .table() })
        driver.handle(.connect(.primary))
        try driver.failAttempts(7)
        #expect(driver.log.retryDelays == [1, 2, 4, 8, 16, 30, 30].map { .seconds($0) })
    }

    @Test("an open alone does not reset the failure counter: a server that accepts then closes is backed off from")
    func openAloneKeepsFailures() throws {
        var driver = MachineDriver(.with { $0.backoff = .table() })
        driver.handle(.connect(.primary))
        try driver.failAttempts(4)  // waited 1, 2, 4, 8 s
        for (attempt, expected) in zip(5..., [16, 30, 30]) {
            try driver.fire(.retry)
            driver.open(try driver.live)
            #expect(driver.phase == .open(attempt: attempt))
            let effects = driver.handle(.closedByPeer(try driver.live, code: .internalError, reason: "bye"))
            #expect(effects.retryDelays == [.seconds(expected)], "the open proved nothing: the backoff keeps growing")
        }
        #expect(try driver.fire(.retry).phases == [.connecting(attempt: 8)])
    }

    @Test("a connection that answers a heartbeat proved itself: the next drop waits the first delay again")
    func answeredHeartbeatResetsFailures() throws {
        var driver = MachineDriver(.with { $0.backoff = .table() })
        driver.handle(.connect(.primary))
        try driver.failAttempts(4)  // waited 1, 2, 4, 8 s
        try driver.fire(.retry)
        let g = try driver.live
        driver.open(g)
        try driver.fire(.heartbeat(g))
        driver.handle(.pong(g))
        let effects = try driver.reset()
        #expect(effects.retryDelays == [.seconds(1)], "not 16 s: the pong proved the connection")
        #expect(try driver.fire(.retry).phases == [.connecting(attempt: 2)])
    }

    @Test("any frame that answers a ping proves the connection, as a pong does")
    func frameAfterPingResetsFailures() throws {
        var driver = MachineDriver(.with { $0.backoff = .table() })
        driver.handle(.connect(.primary))
        try driver.failAttempts(3)
        try driver.fire(.retry)
        let g = try driver.live
        driver.open(g)
        // A message before any ping proves nothing yet: it may be the server's last word.
        driver.handle(.received(g, .payload, sequence: nil))
        #expect(driver.machine.failures == 3)
        try driver.fire(.heartbeat(g))
        driver.handle(.received(g, .payload, sequence: nil))
        #expect(driver.machine.failures == 0)
    }

    @Test("a proven connection forgets the previous delay that decorrelated jitter grows from")
    func proofResetsPreviousDelay() throws {
        var driver = MachineDriver(.with { $0.backoff = .decorrelatedJitter(base: .seconds(1), cap: .seconds(30)) })
        var top = ConstantWords(word: .max)
        driver.machine.handle(.connect(.primary), using: &top)
        for _ in 0..<3 {
            driver.machine.handle(.connectFailed(try driver.live, .refused), using: &top)
            driver.machine.handle(.timerFired(.retry), using: &top)
        }
        // Delays at the top of their ranges: 3, 9, 27 s.
        #expect(driver.machine.lastDelay == .seconds(27))
        let g = try driver.live
        driver.machine.handle(.opened(g), using: &top)
        driver.machine.handle(.flushed(g), using: &top)
        driver.machine.handle(.timerFired(.heartbeat(g)), using: &top)
        driver.machine.handle(.pong(g), using: &top)
        let effects = driver.machine.handle(.failed(g, .refused), using: &top)
        #expect(effects.retryDelays == [.seconds(3)], "U(1 s, 3·1 s), not U(1 s, 3·27 s)")
    }

    @Test("a refresh that does not help backs off: 4001 after every open waits longer each time")
    func refreshLoopBacksOff() throws {
        var driver = MachineDriver(.with { $0.backoff = .table() })
        try driver.connectAndOpen()
        var waits: [Duration] = []
        for _ in 0..<5 {
            driver.handle(.closedByPeer(try driver.live, code: .tokenExpired, reason: "expired"))
            let effects = driver.handle(.credentialsRefreshed(succeeded: true))
            waits += effects.retryDelays
            if effects.retryDelays.isEmpty {
                #expect(driver.machine.liveGeneration != nil)
            } else {
                try driver.fire(.retry)
            }
            driver.open(try driver.live)
        }
        // The first refresh reconnects at once (seed 000); the ones that did not help wait 1, 2, 4, 8 s.
        #expect(waits == [1, 2, 4, 8].map { .seconds($0) })
    }

    @Test(
        "a permanent error (a URL that cannot be used) stops with the reason instead of retrying",
        arguments: ["bad port 99999", "scheme must be ws or wss: http://example.com/"])
    func permanentErrorStops(detail: String) throws {
        var driver = MachineDriver()
        driver.handle(.connect(.primary))
        let effects = driver.handle(.connectFailed(try driver.live, .invalidURL(detail)))
        #expect(effects.retryDelays.isEmpty)
        #expect(driver.phase == .stopped(reason: "invalid URL: \(detail)"))
        #expect(!driver.machine.wanted)
        // connect(to:) again (another URL) is the way out.
        driver.handle(.connect(.secondary))
        #expect(driver.phase == .connecting(attempt: 1))
    }

    @Test(
        "connect(to:) while waiting starts the backoff over, the previous delay included",
        arguments: [Endpoint.primary, .secondary])
    func connectForgetsPreviousDelay(endpoint: Endpoint) throws {
        var driver = MachineDriver(.with { $0.backoff = .decorrelatedJitter(base: .seconds(1), cap: .seconds(30)) })
        var top = ConstantWords(word: .max)
        driver.machine.handle(.connect(.primary), using: &top)
        for _ in 0..<3 {
            driver.machine.handle(.connectFailed(try driver.live, .refused), using: &top)
            driver.machine.handle(.timerFired(.retry), using: &top)
        }
        driver.machine.handle(.connectFailed(try driver.live, .refused), using: &top)
        #expect(driver.machine.lastDelay == .seconds(30))
        driver.machine.handle(.connect(endpoint), using: &top)
        let effects = driver.machine.handle(.connectFailed(try driver.live, .refused), using: &top)
        #expect(effects.retryDelays == [.seconds(3)], "after a reset the first failure waits U(1 s, 3 s)")
    }

    @Test("connect(to:) a new endpoint while connecting starts the backoff over, the previous delay included")
    func newEndpointWhileConnectingForgetsPreviousDelay() throws {
        var driver = MachineDriver(.with { $0.backoff = .decorrelatedJitter(base: .seconds(1), cap: .seconds(30)) })
        var top = ConstantWords(word: .max)
        driver.machine.handle(.connect(.primary), using: &top)
        for _ in 0..<3 {
            driver.machine.handle(.connectFailed(try driver.live, .refused), using: &top)
            driver.machine.handle(.timerFired(.retry), using: &top)
        }
        driver.machine.handle(.connect(.secondary), using: &top)
        #expect(driver.machine.failures == 0)
        let effects = driver.machine.handle(.connectFailed(try driver.live, .refused), using: &top)
        #expect(effects.retryDelays == [.seconds(3)])
    }

    @Test("the machine passes the previous delay to decorrelated jitter: each delay is up to 3× the last")
    func decorrelatedGrowsFromPrevious() throws {
        var driver = MachineDriver(.with { $0.backoff = .decorrelatedJitter(base: .seconds(1), cap: .seconds(100)) })
        var top = ConstantWords(word: .max)
        driver.machine.handle(.connect(.primary), using: &top)
        var delays: [Duration] = []
        for _ in 0..<5 {
            delays += driver.machine.handle(.connectFailed(try driver.live, .refused), using: &top).retryDelays
            driver.machine.handle(.timerFired(.retry), using: &top)
        }
        #expect(delays == [3, 9, 27, 81, 100].map { .seconds($0) })
    }

    @Test(
        "the waiting phase reports the delay the retry timer was armed with", arguments: 1...20 as ClosedRange<UInt64>)
    func waitingReportsArmedDelay(seed: UInt64) throws {
        var driver = MachineDriver(seed: seed)
        driver.handle(.connect(.primary))
        for _ in 0..<3 {
            let effects = driver.handle(.connectFailed(try driver.live, .refused))
            let delay = try #require(effects.retryDelays.first)
            #expect(effects.phases == [.waiting(reason: "error ECONNREFUSED", delay: delay)])
            try driver.fire(.retry)
        }
    }
}
