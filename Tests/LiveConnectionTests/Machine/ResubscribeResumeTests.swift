import Testing

@testable import LiveConnection

/// Every new connection resubscribes every topic and resumes after the last sequence
/// delivered before it reports open; duplicates are dropped and gaps reported.
@Suite("Machine: resubscribe and resume")
struct ResubscribeResumeTests {
    @Test("every new connection resumes, then resubscribes every topic in order, then reports open")
    func resubscribeThenResumeThenOpen() throws {
        var driver = MachineDriver(.with { $0.backoff = .table() })
        driver.handle(.subscribe("availability"))
        driver.handle(.subscribe("loans"))
        try driver.connectAndOpen()
        driver.handle(.received(1, .payload, sequence: 41))
        for (g, attempt): (Generation, Int) in [(2, 2), (3, 3)] {
            try driver.reset()
            try driver.fire(.retry)
            let effects = driver.open(g)
            #expect(
                effects == [
                    .send(g, .control(.resume(after: 41))),
                    .send(g, .control(.subscribe("availability"))),
                    .send(g, .control(.subscribe("loans"))),
                    .flush(g),
                    .cancelTimer(.connectTimeout(g)),
                    .startTimer(.heartbeat(g), driver.machine.configuration.heartbeatInterval),
                    .report(.open(attempt: attempt)),  // no heartbeat answered in between: each drop counts
                ])
        }
    }

    @Test(
        "open is reported only once the transport took the resubscriptions; until then the attempt is still connecting")
    func openWaitsForFlush() throws {
        var driver = MachineDriver()
        driver.handle(.subscribe("loans"))
        driver.handle(.connect(.primary))
        let opened = driver.handle(.opened(1))
        #expect(opened == [.send(1, .control(.subscribe("loans"))), .flush(1)])
        #expect(driver.state == .subscribing(1, flushesPending: 1))
        #expect(driver.phase == .connecting(attempt: 1))
        #expect(driver.isArmed(.connectTimeout(1)), "a server that never takes the subscriptions is a connect timeout")
        let flushed = driver.handle(.flushed(1))
        #expect(flushed.phases == [.open(attempt: 1)])
        #expect(!driver.isArmed(.connectTimeout(1)))
    }

    @Test("a connection whose resubscriptions are never taken times out like a handshake")
    func subscribingTimesOut() throws {
        var driver = MachineDriver(.with { $0.backoff = .table() })
        driver.handle(.connect(.primary))
        driver.handle(.opened(1))
        let effects = driver.advance(by: .seconds(10))
        #expect(effects.contains(.closeConnection(1, code: .normal, reason: "connect timeout")))
        #expect(driver.state == .waiting(reason: "connect timeout"))
    }

    @Test("a connection that drops before its resubscriptions were taken is a failure: the counter does not reset")
    func dropWhileSubscribingCountsAsFailure() throws {
        var driver = MachineDriver(.with { $0.backoff = .table() })
        driver.handle(.connect(.primary))
        try driver.failAttempts(2)  // waited 1, 2 s
        try driver.fire(.retry)
        driver.handle(.opened(3))
        let effects = driver.handle(.failed(3, .reset(errno: "ECONNRESET")))
        #expect(effects.retryDelays == [.seconds(4)])
    }

    @Test("subscribing while resubscribing sends at once; messages arriving meanwhile are delivered in order")
    func activityWhileSubscribing() throws {
        var driver = MachineDriver()
        try driver.connectAndOpen()
        driver.handle(.received(1, .payload, sequence: 5))
        try driver.reset()
        try driver.fire(.retry)
        driver.handle(.opened(2))
        #expect(driver.handle(.subscribe("holds")) == [.send(2, .control(.subscribe("holds"))), .flush(2)])
        #expect(driver.handle(.received(2, .payload, sequence: 5)).isEmpty, "a replayed duplicate")
        #expect(driver.handle(.received(2, .payload, sequence: 6)) == [.deliverMessage(.payload, sequence: 6)])
        #expect(driver.handle(.send(1)) == [.completeCommand(1, .notConnected)], "not open yet")
    }

    @Test("a topic subscribed mid-resubscription is taken before open is reported")
    func lateSubscribeDelaysOpen() throws {
        var driver = MachineDriver()
        driver.handle(.subscribe("loans"))
        driver.handle(.connect(.primary))
        driver.handle(.opened(1))
        driver.handle(.subscribe("holds"))
        #expect(driver.handle(.flushed(1)).phases.isEmpty, "the first flush does not cover 'holds'")
        #expect(driver.state == .subscribing(1, flushesPending: 1))
        #expect(driver.handle(.flushed(1)).phases == [.open(attempt: 1)])
    }

    @Test("the first connection, before any message, asks for no resume")
    func noResumeBeforeAnySequence() throws {
        var driver = MachineDriver()
        driver.handle(.subscribe("loans"))
        let effects = try driver.connectAndOpen()
        #expect(!effects.contains { if case .send(_, .control(.resume)) = $0 { true } else { false } })
        #expect(effects.contains(.send(1, .control(.subscribe("loans")))))
    }

    @Test("a connection that drops before any message resumes from 0: the outage's messages are not lost")
    func resumeFromZeroAfterAnEmptyConnection() throws {
        var driver = MachineDriver(.with { $0.backoff = .table() })
        driver.handle(.subscribe("feed"))
        try driver.connectAndOpen()
        try driver.reset()
        try driver.fire(.retry)
        #expect(
            driver.open(2).prefix(2) == [.send(2, .control(.resume(after: 0))), .send(2, .control(.subscribe("feed")))])
    }

    @Test("with resume off, no resume is asked for and sequence numbers are not policed")
    func resumeOff() throws {
        var driver = MachineDriver(.with { $0.resume = false })
        try driver.connectAndOpen()
        #expect(driver.handle(.received(1, .payload, sequence: 5)) == [.deliverMessage(.payload, sequence: 5)])
        #expect(driver.handle(.received(1, .payload, sequence: 5)) == [.deliverMessage(.payload, sequence: 5)])
        #expect(driver.handle(.received(1, .payload, sequence: 9)) == [.deliverMessage(.payload, sequence: 9)])
        try driver.reset()
        try driver.fire(.retry)
        #expect(!driver.open(2).contains { if case .send(_, .control(.resume)) = $0 { true } else { false } })
    }

    @Test("messages in order are delivered and remembered")
    func inOrderDelivered() throws {
        var driver = MachineDriver()
        try driver.connectAndOpen()
        for sequence: UInt64 in 1...3 {
            #expect(
                driver.handle(.received(1, .payload, sequence: sequence)) == [
                    .deliverMessage(.payload, sequence: sequence)
                ])
        }
        #expect(driver.machine.lastSequence == 3)
    }

    @Test(
        "a replayed message at or below the last sequence is dropped",
        arguments: [1, 9, 10] as [UInt64])
    func duplicatesDropped(sequence: UInt64) throws {
        var driver = MachineDriver()
        try driver.connectAndOpen()
        driver.handle(.received(1, .payload, sequence: 10))
        #expect(driver.handle(.received(1, .payload, sequence: sequence)).isEmpty)
        #expect(driver.machine.lastSequence == 10)
    }

    @Test("a skipped sequence is reported as a gap, then the message is delivered")
    func gapReported() throws {
        var driver = MachineDriver()
        try driver.connectAndOpen()
        driver.handle(.received(1, .payload, sequence: 10))
        #expect(
            driver.handle(.received(1, .payload, sequence: 14)) == [
                .reportGap(expected: 11, received: 14), .deliverMessage(.payload, sequence: 14),
            ])
        #expect(driver.machine.lastSequence == 14)
    }

    @Test("a replay after reconnecting delivers each message once across connections")
    func resumeAcrossConnections() throws {
        var driver = MachineDriver()
        try driver.connectAndOpen()
        for sequence: UInt64 in 1...3 { driver.handle(.received(1, .payload, sequence: sequence)) }
        try driver.reset()
        try driver.fire(.retry)
        #expect(driver.open(2).contains(.send(2, .control(.resume(after: 3)))))
        // The server replays from its log, overlapping what was already delivered.
        var delivered: [UInt64] = []
        for sequence: UInt64 in 2...5
        where driver.handle(.received(2, .payload, sequence: sequence)).contains(
            .deliverMessage(.payload, sequence: sequence))
        {
            delivered.append(sequence)
        }
        #expect(delivered == [4, 5])
    }

    @Test("messages without a sequence number are always delivered and do not disturb resume")
    func unsequencedMessages() throws {
        var driver = MachineDriver()
        try driver.connectAndOpen()
        driver.handle(.received(1, .payload, sequence: 7))
        #expect(driver.handle(.received(1, .payload, sequence: nil)) == [.deliverMessage(.payload, sequence: nil)])
        #expect(driver.machine.lastSequence == 7)
    }
}
