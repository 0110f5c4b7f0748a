import Testing

@testable import LiveConnection

/// The user's intents: connect, disconnect, foreground, subscriptions, and the three
/// separate facts "wanted", "foreground" and "connected".
@Suite("Machine: intents")
struct IntentTests {
    @Test("connect(to:) from idle reports connecting, opens generation 1 and arms its connect timeout")
    func connectFromIdle() {
        var driver = MachineDriver()
        let effects = driver.handle(.connect(.primary))
        #expect(
            effects == [
                .report(.connecting(attempt: 1)),
                .openConnection(1, .primary),
                .startTimer(.connectTimeout(1), driver.machine.configuration.connectTimeout),
            ])
        #expect(driver.state == .connecting(1))
        #expect(driver.machine.wanted)
    }

    @Test("connect(to:) the same endpoint while connecting or open changes nothing")
    func connectSameEndpointIsIdempotent() throws {
        var driver = MachineDriver()
        driver.handle(.connect(.primary))
        let whileConnecting = driver.machine
        #expect(driver.handle(.connect(.primary)).isEmpty)
        #expect(driver.machine == whileConnecting)
        driver.open(try driver.live)
        let whileOpen = driver.machine
        #expect(driver.handle(.connect(.primary)).isEmpty)
        #expect(driver.machine == whileOpen)
    }

    @Test("connect(to:) a new endpoint while open closes the old generation and opens the new endpoint at once")
    func connectNewEndpointMovesAtOnce() throws {
        var driver = MachineDriver()
        try driver.connectAndOpen(to: .primary)
        driver.handle(.send(7))
        let effects = driver.handle(.connect(.secondary))
        #expect(effects.closed == [1])
        #expect(effects.opened == [2])
        #expect(effects.contains(.openConnection(2, .secondary)))
        #expect(effects.completions == [7: [.outcomeUnknown]])
        #expect(effects.retryDelays.isEmpty, "a new destination is not a failure: no backoff")
        #expect(driver.machine.endpoint == .secondary)
    }

    @Test("connect(to:) while waiting cancels the backoff and connects at once, counting attempts from 1")
    func connectWhileWaitingSkipsBackoff() throws {
        var driver = MachineDriver(.with { $0.backoff = .table() })
        try driver.connectAndOpen()
        try driver.reset()
        #expect(driver.isArmed(.retry))
        let effects = driver.handle(.connect(.primary))
        #expect(effects.first == .cancelTimer(.retry))
        #expect(effects.opened == [2])
        #expect(effects.phases == [.connecting(attempt: 1)])
        #expect(driver.machine.failures == 0)
    }

    @Test("disconnect() closes the live connection, cancels the backoff and stops", arguments: SetupState.allCases)
    func disconnectStopsFromEveryState(setup: SetupState) throws {
        var driver = try setup.make()
        let live = driver.machine.liveGeneration
        let retryArmed = driver.isArmed(.retry)
        let effects = driver.handle(.disconnect())
        #expect(driver.state == .stopped(reason: "disconnected") || setup == .stoppedTerminal)
        #expect(!driver.machine.wanted)
        #expect(effects.closed == (live.map { [$0] } ?? []))
        #expect(
            driver.armed.isEmpty, "timers left armed: \(driver.armed.map(\.timer)) (retry armed before: \(retryArmed))")
        #expect(effects.opened.isEmpty)
    }

    @Test(
        "disconnect(code:reason:) puts the app's code and reason in the close, from every state",
        arguments: SetupState.allCases)
    func disconnectWithCode(setup: SetupState) throws {
        var driver = try setup.make()
        let live = driver.machine.liveGeneration
        let effects = driver.handle(.disconnect(code: CloseCode(4000), reason: "signed out"))
        let closes = effects.compactMap { effect -> Effect? in
            if case .closeConnection = effect { effect } else { nil }
        }
        #expect(closes == (live.map { [.closeConnection($0, code: CloseCode(4000), reason: "signed out")] } ?? []))
        #expect(driver.state == .stopped(reason: "disconnected") || setup == .stoppedTerminal)
        #expect(!driver.machine.wanted)
    }

    @Test("backgrounding closes the socket but keeps wanting it; the foreground reconnects at once")
    func backgroundKeepsWanted() throws {
        var driver = MachineDriver(.with { $0.backoff = .table() })
        try driver.connectAndOpen()
        let background = driver.handle(.setForeground(false))
        #expect(background.contains(.closeConnection(1, code: .goingAway, reason: "backgrounded")))
        #expect(driver.state == .backgrounded)
        #expect(driver.machine.wanted, "backgrounding must not forget the user's intent")
        #expect(driver.machine.liveGeneration == nil, "no socket in the background")
        let foreground = driver.handle(.setForeground(true))
        #expect(foreground.opened == [2], "the foreground reconnects without waiting")
        #expect(foreground.retryDelays.isEmpty)
    }

    @Test("backgrounding while waiting cancels the backoff; the foreground forgets the failures")
    func backgroundWhileWaiting() throws {
        var driver = MachineDriver(.with { $0.backoff = .table() })
        driver.handle(.connect(.primary))
        try driver.failAttempts(4)
        #expect(driver.machine.failures == 4)
        let background = driver.handle(.setForeground(false))
        #expect(background.first == .cancelTimer(.retry))
        #expect(driver.state == .backgrounded)
        let foreground = driver.handle(.setForeground(true))
        #expect(foreground.phases == [.connecting(attempt: 1)])
        #expect(foreground.opened.count == 1)
    }

    @Test("the foreground does not connect a machine nobody asked to connect")
    func foregroundWithoutWanted() {
        var driver = MachineDriver()
        #expect(driver.handle(.setForeground(false)).isEmpty)
        #expect(driver.handle(.setForeground(true)).isEmpty)
        #expect(driver.state == .idle)
        driver.handle(.connect(.primary))
        driver.handle(.disconnect())
        driver.handle(.setForeground(false))
        #expect(driver.handle(.setForeground(true)).isEmpty)
        #expect(driver.state == .stopped(reason: "disconnected"))
    }

    @Test("connect(to:) in the background waits for the foreground to open a socket")
    func connectInBackground() {
        var driver = MachineDriver()
        driver.handle(.setForeground(false))
        let effects = driver.handle(.connect(.primary))
        #expect(effects == [.report(.backgrounded)])
        #expect(driver.machine.wanted)
        #expect(driver.handle(.setForeground(true)).opened == [1])
    }

    @Test("repeating the current foreground value changes nothing")
    func foregroundIsIdempotent() throws {
        var driver = MachineDriver()
        try driver.connectAndOpen()
        let before = driver.machine
        #expect(driver.handle(.setForeground(true)).isEmpty)
        #expect(driver.machine == before)
    }

    @Test("subscribing while open sends at once; while not open it waits for the next open")
    func subscribeSendsWhenOpen() throws {
        var driver = MachineDriver()
        #expect(driver.handle(.subscribe("availability")).isEmpty)
        driver.handle(.connect(.primary))
        #expect(driver.handle(.subscribe("loans")).isEmpty, "connecting: the open will resubscribe")
        driver.open(1)
        #expect(driver.handle(.subscribe("holds")) == [.send(1, .control(.subscribe("holds")))])
        #expect(driver.machine.topics == ["availability", "loans", "holds"])
    }

    @Test("subscribing twice to a topic sends one subscribe")
    func subscribeTwice() throws {
        var driver = MachineDriver()
        try driver.connectAndOpen()
        driver.handle(.subscribe("loans"))
        #expect(driver.handle(.subscribe("loans")).isEmpty)
        #expect(driver.machine.topics == ["loans"])
    }

    @Test("unsubscribing while open sends at once and the topic is not resubscribed")
    func unsubscribe() throws {
        var driver = MachineDriver()
        driver.handle(.subscribe("availability"))
        driver.handle(.subscribe("loans"))
        try driver.connectAndOpen()
        #expect(driver.handle(.unsubscribe("availability")) == [.send(1, .control(.unsubscribe("availability")))])
        #expect(driver.handle(.unsubscribe("never")).isEmpty)
        try driver.reset()
        try driver.fire(.retry)
        let reopen = driver.open(2)
        #expect(!reopen.contains(.send(2, .control(.subscribe("availability")))))
        #expect(reopen.contains(.send(2, .control(.subscribe("loans")))))
    }

    @Test("the destination changes only through connect(to:): every retry and refresh reopens the same endpoint")
    func destinationIsSticky() throws {
        var driver = MachineDriver(.with { $0.backoff = .table() })
        try driver.connectAndOpen(to: .secondary)
        try driver.reset()
        try driver.fire(.retry)
        driver.open(2)
        // Proven (it answered a heartbeat), so the refresh after 4001 reconnects at once.
        try driver.fire(.heartbeat(2))
        driver.handle(.pong(2))
        driver.handle(.closedByPeer(2, code: .tokenExpired, reason: "expired"))
        driver.handle(.credentialsRefreshed(succeeded: true))
        driver.handle(.setForeground(false))
        driver.handle(.setForeground(true))
        let endpoints = driver.log.compactMap { if case .openConnection(_, let e) = $0 { e } else { nil } }
        #expect(endpoints == [.secondary, .secondary, .secondary, .secondary])
    }

    @Test("connect(to:) a new endpoint during a refresh takes effect when the refresh completes")
    func newEndpointDuringRefresh() throws {
        var driver = MachineDriver()
        try driver.connectAndOpen(to: .primary)
        driver.handle(.closedByPeer(1, code: .tokenExpired, reason: "expired"))
        #expect(driver.handle(.connect(.secondary)).isEmpty, "one refresh at a time")
        let effects = driver.handle(.credentialsRefreshed(succeeded: true))
        #expect(effects.contains(.openConnection(2, .secondary)))
    }
}

/// Named starting points: every `State` case, reached through real inputs.
enum SetupState: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case idle, connecting, subscribing, open, openAwaitingPong, waiting, refreshing, backgrounded, stoppedDisconnected,
        stoppedTerminal

    var testDescription: String { rawValue }

    /// A driver in this state. All but `idle` have been through generation 1 at least, so
    /// generation 1 is stale in every state that is not connecting or open on it.
    func make(_ configuration: ConnectionConfiguration = ConnectionConfiguration()) throws -> MachineDriver {
        var driver = MachineDriver(configuration)
        driver.handle(.subscribe("availability"))
        guard self != .idle else { return driver }
        // Generation 1 opens, delivers a message and dies: from here on it is stale.
        try driver.connectAndOpen()
        driver.handle(.received(1, .payload, sequence: 1))
        try driver.reset()
        try driver.fire(.retry)  // connecting on generation 2
        switch self {
        case .idle: preconditionFailure("handled above")
        case .connecting: break
        case .subscribing: driver.handle(.opened(2))
        case .open: driver.open(2)
        case .openAwaitingPong:
            driver.open(2)
            try driver.fire(.heartbeat(2))
        case .waiting: driver.handle(.connectFailed(2, .refused))
        case .refreshing: driver.handle(.connectFailed(2, .handshakeRejected(status: 401)))
        case .backgrounded: driver.handle(.setForeground(false))
        case .stoppedDisconnected: driver.handle(.disconnect())
        case .stoppedTerminal:
            driver.open(2)
            driver.handle(.closedByPeer(2, code: .forbidden, reason: "forbidden"))
        }
        return driver
    }
}
