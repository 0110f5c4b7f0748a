import Testing

@testable import LiveConnection

/// The heartbeat: a ping every P; no pong (or any frame) within T of the oldest
/// unanswered ping → "heartbeat missed". A dead peer is detected within P + T.
@Suite("Machine: heartbeat")
struct HeartbeatTests {
    static func configuration(interval p: Int64, timeout t: Int64) -> ConnectionConfiguration {
        .with {
            $0.heartbeatInterval = .milliseconds(p)
            $0.heartbeatTimeout = .milliseconds(t)
            $0.backoff = .table()
        }
    }

    @Test("opening arms the heartbeat P after the open")
    func openArmsHeartbeat() throws {
        var driver = MachineDriver(Self.configuration(interval: 500, timeout: 300))
        try driver.connectAndOpen()
        #expect(driver.deadline(of: .heartbeat(1)) == .milliseconds(500))
        #expect(!driver.isArmed(.pongDeadline(1)))
    }

    @Test("the heartbeat pings, re-arms itself P later and starts the pong deadline T later")
    func heartbeatPings() throws {
        var driver = MachineDriver(Self.configuration(interval: 500, timeout: 300))
        try driver.connectAndOpen()
        let effects = driver.advance(by: .milliseconds(500))
        #expect(
            effects == [
                .ping(1), .startTimer(.heartbeat(1), .milliseconds(500)),
                .startTimer(.pongDeadline(1), .milliseconds(300)),
            ])
        #expect(driver.state == .open(1, OpenConnection(attempt: 1, awaitingPong: true)))
    }

    @Test("a pong disarms the deadline; the next ping arms a new one")
    func pongDisarmsDeadline() throws {
        var driver = MachineDriver(Self.configuration(interval: 500, timeout: 300))
        try driver.connectAndOpen()
        driver.advance(by: .milliseconds(500))
        #expect(driver.handle(.pong(1)) == [.cancelTimer(.pongDeadline(1))])
        #expect(driver.state == .open(1, OpenConnection(attempt: 1)))
        #expect(driver.handle(.pong(1)).isEmpty, "an unsolicited pong changes nothing")
        driver.advance(by: .milliseconds(500))
        #expect(driver.deadline(of: .pongDeadline(1)) == .milliseconds(1_300))
    }

    @Test("any received frame counts as liveness: data alone keeps a connection whose pongs queue behind it")
    func dataCountsAsLiveness() throws {
        var driver = MachineDriver(Self.configuration(interval: 500, timeout: 300))
        try driver.connectAndOpen()
        driver.advance(by: .milliseconds(500))
        let effects = driver.handle(.received(1, .payload, sequence: nil))
        #expect(effects == [.cancelTimer(.pongDeadline(1)), .deliverMessage(.payload, sequence: nil)])
        let later = driver.advance(by: .seconds(10)) { driver in driver.handle(.received(1, .payload, sequence: nil)) }
        #expect(driver.phase == .open(attempt: 1), "\(later)")
    }

    @Test("while a ping is unanswered, later pings do not push the deadline back")
    func deadlineRunsFromOldestPing() throws {
        // T > P: the second ping goes out while the first is unanswered.
        var driver = MachineDriver(Self.configuration(interval: 200, timeout: 500))
        try driver.connectAndOpen()
        driver.advance(by: .milliseconds(200))
        #expect(driver.deadline(of: .pongDeadline(1)) == .milliseconds(700))
        let second = driver.advance(by: .milliseconds(200))
        #expect(second == [.ping(1), .startTimer(.heartbeat(1), .milliseconds(200))])
        #expect(driver.deadline(of: .pongDeadline(1)) == .milliseconds(700))
    }

    @Test("no pong by the deadline: close going-away, answer in-flight commands, wait 'heartbeat missed'")
    func missedHeartbeat() throws {
        var driver = MachineDriver(Self.configuration(interval: 500, timeout: 500))
        try driver.connectAndOpen()
        driver.handle(.send(3))
        let effects = driver.advance(by: .milliseconds(1_000))
        #expect(effects.contains(.closeConnection(1, code: .goingAway, reason: "heartbeat missed")))
        #expect(effects.completions == [3: [.outcomeUnknown]])
        #expect(effects.phases == [.waiting(reason: "heartbeat missed", delay: .seconds(1))])
        #expect(!driver.isArmed(.heartbeat(1)) && !driver.isArmed(.pongDeadline(1)))
    }

    @Test("leaving open disarms the heartbeat and the pending deadline", arguments: [false, true])
    func teardownDisarms(awaitingPong: Bool) throws {
        var driver = MachineDriver(Self.configuration(interval: 500, timeout: 300))
        try driver.connectAndOpen()
        if awaitingPong { driver.advance(by: .milliseconds(500)) }
        let effects = try driver.reset()
        #expect(effects.contains(.cancelTimer(.heartbeat(1))))
        #expect(effects.contains(.cancelTimer(.pongDeadline(1))) == awaitingPong)
        #expect(driver.armed.map(\.timer) == [.retry])
    }

    /// (P, T) in milliseconds, including T > P and T ≪ P.
    static let heartbeats: [(Int64, Int64)] = [(500, 500), (25_000, 10_000), (200, 900), (1_000, 1)]

    @Test(
        "a peer that goes silent at any moment is declared dead within P + T, and not before T",
        arguments: heartbeats, [0, 1, 137, 499, 500, 501, 2_999, 10_007] as [Int64])
    func detectionBound(heartbeat: (Int64, Int64), silentAfterMilliseconds: Int64) throws {
        let (p, t) = heartbeat
        var driver = MachineDriver(Self.configuration(interval: p, timeout: t))
        try driver.connectAndOpen()
        let silentAt = Duration.milliseconds(silentAfterMilliseconds)
        // Until silentAt the peer answers every ping the instant it goes out; after, nothing.
        var detectedAt: Duration?
        while detectedAt == nil, driver.now < silentAt + .milliseconds(p + t) * 3 {
            let effects = try driver.fireNext()
            if effects.phases.contains(.waiting(reason: "heartbeat missed", delay: .seconds(1))) {
                detectedAt = driver.now
            }
            if driver.now <= silentAt, case .open(let g, let connection) = driver.state, connection.awaitingPong {
                driver.handle(.pong(g))
            }
        }
        let detected = try #require(detectedAt, "never detected (P \(p) ms, T \(t) ms)")
        let delay = detected - silentAt
        #expect(delay <= .milliseconds(p + t), "detected \(delay) after the peer went silent (P \(p), T \(t))")
        #expect(delay >= .milliseconds(t), "detected \(delay) after silence: faster than T is a false alarm")
    }
}
