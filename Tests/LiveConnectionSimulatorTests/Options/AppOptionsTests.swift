import LiveConnection
import LiveConnectionSimulator
import Testing

import typealias LiveConnection.Mutex

/// The app's opt-in options in the simulator: the swarm draws an attempt limit and
/// credentials before every connect for some seeds, traces carry them, and the invariants
/// judge them from what the app and the server see.
@Suite("Simulator: attempt limits and credentials timing")
struct AppOptionsTests {
    @Test(
        "the swarm draws a limit of 1 to 6 attempts for about a quarter of the seeds, and the timing for another quarter"
    )
    func swarmDrawsOptions() {
        let generator = ScenarioGenerator(duration: .seconds(60))
        let configurations = (0..<400 as Range<UInt64>).map { generator.scenario(seed: $0).configuration }
        let limits = configurations.compactMap(\.maximumAttempts)
        let fetching = configurations.filter { $0.credentialsTiming == .beforeEveryConnect }
        #expect((60...140).contains(limits.count), "\(limits.count) of 400 seeds limit their attempts")
        #expect(Set(limits) == Set(1...6), "limits drawn: \(Set(limits).sorted())")
        #expect((60...140).contains(fetching.count), "\(fetching.count) of 400 seeds fetch before every connect")
        #expect(configurations.contains { $0.maximumAttempts != nil && $0.credentialsTiming == .beforeEveryConnect })
        // From the seed alone, and from a sub-seed of its own: the other draws stay put.
        for seed in [3, 4, 5] as [UInt64] {
            #expect(generator.scenario(seed: seed) == generator.scenario(seed: seed))
        }
        var fixed = ConnectionConfiguration()
        fixed.heartbeatInterval = .seconds(7)
        let kept = ScenarioGenerator(configuration: fixed).scenario(seed: 4).configuration
        #expect(kept == fixed, "a fixed configuration is run as given")
    }

    @Test("a trace writes the options only when set, and reads them back")
    func traceCarriesOptions() throws {
        var scenario = ScenarioGenerator(duration: .seconds(60)).scenario(seed: 1)
        scenario.configuration = ConnectionConfiguration()
        let plain = Trace(scenario: scenario, generator: ScenarioGenerator.traceIdentity).encode()
        #expect(!plain.contains("maximum-attempts") && !plain.contains("credentials-timing"))
        try scenario.configuration.limitAttempts(to: 3)
        scenario.configuration.credentialsTiming = .beforeEveryConnect
        let text = Trace(scenario: scenario, generator: ScenarioGenerator.traceIdentity).encode()
        #expect(
            text.contains("\nmaximum-attempts: 3\n") && text.contains("\ncredentials-timing: before-every-connect\n"))
        let read = try Trace(parsing: text)
        #expect(read.scenario.configuration.maximumAttempts == 3)
        #expect(read.scenario.configuration.credentialsTiming == .beforeEveryConnect)
        #expect(read.encode() == text)
    }

    @Test(
        "a bad option in a trace is refused with its line and why",
        arguments: [
            ("maximum-attempts: 0", "maximumAttempts 0 is out of range: at least 1, or nil for no limit"),
            ("maximum-attempts: many", "many"),
            ("credentials-timing: sometimes", "'credentials-timing' is 'after-expiry' or 'before-every-connect'"),
        ])
    func badOptionsRefused(line: String, reason: String) throws {
        let scenario = ScenarioGenerator(duration: .seconds(60)).scenario(seed: 1)
        var text = Trace(scenario: scenario, generator: ScenarioGenerator.traceIdentity).encode()
        text = text.replacingOccurrences(of: "\nduration:", with: "\n\(line)\nduration:")
        #expect {
            try Trace(parsing: text)
        } throws: { error in
            guard case .malformedLine(_, let bad, let why) = error as? TraceError else { return false }
            return bad == line && why.contains(reason)
        }
    }

    @Test("a server that answers 401 for good is given up on at the limit, and the invariants agree")
    func unauthorizedForeverGivesUp() throws {
        var configuration = ScenarioGenerator.configurations[2]
        try configuration.limitAttempts(to: 3)
        let scenario = Scenario(
            seed: 0, configuration: configuration, strategy: .fifo, duration: .seconds(120),
            schedule: [
                ScheduledAction(at: .zero, .connect(endpoint: 0)),
                ScheduledAction(at: .seconds(10), .failHandshakes(status: 401)),
                ScheduledAction(at: .seconds(10), .restartServer),
            ], managerSeed: 1)
        let result = SimulationRun(scenario).run()
        #expect(result.violations.isEmpty, "\(result.violations)")
        let stops = result.log.filter { $0.contains("phase stopped") }
        #expect(stops.count == 1 && stops[0].contains("reason=\"gave up after 3 attempts\""), "\(stops)")
        #expect(!result.log.contains { $0.contains("attempt=4") }, "no fourth attempt")
    }

    // MARK: Fresh credentials on every handshake

    /// Runs a manager with `provider` against the simulated network: connect, three resets
    /// (and a 4001 in between), judged throughout; returns the violations and the token each
    /// handshake carried.
    static func credentialsRun(
        timing: ConnectionConfiguration.CredentialsTiming,
        provider: @escaping @Sendable (CredentialsIssuer) -> ConnectionManager.CredentialsProvider
    ) -> (violations: [Violation], tokens: [Int?]) {
        var configuration = ScenarioGenerator.configurations[2]
        configuration.credentialsTiming = timing
        let clock = VirtualClock()
        let network = SimulatedNetwork(clock: clock)
        let issuer = CredentialsIssuer()
        let monitor = InvariantMonitor(
            configuration: configuration, network: network, clock: clock, credentials: issuer)
        _ = Simulation.run(strategy: .fifo, clock: clock, until: .seconds(120)) {
            let manager = ConnectionManager(
                configuration: configuration, transport: network, clock: clock, random: SplitMix64(seed: 9),
                credentials: provider(issuer), observer: { monitor.observe($0, $1) })
            await withDiscardingTaskGroup { group in
                group.addTask { await manager.run() }
                await manager.connect(to: Scenario.endpoint(0))
                for action: SimulationAction in [
                    .resetConnection, .closeConnection(code: .tokenExpired, reason: "expired"), .resetConnection,
                ] {
                    do { try await clock.sleep(for: .seconds(10)) } catch { return }
                    monitor.noteDisruption()  // as the driver does: liveness restarts its clock
                    network.apply(action)
                    monitor.check()
                }
                do { try await clock.sleep(for: .seconds(10)) } catch { return }
                monitor.finish()
                group.cancelAll()
            }
        }
        return (monitor.violations, network.allLinks().map { CredentialsIssuer.token(in: $0.endpoint.headers) })
    }

    @Test("before every connect, each handshake carries a token fetched for it")
    func freshTokenPerAttempt() {
        let run = Self.credentialsRun(timing: .beforeEveryConnect) { $0.provider }
        #expect(run.violations.isEmpty, "\(run.violations)")
        #expect(run.tokens == [1, 2, 3, 4], "tokens on the wire: \(run.tokens)")
    }

    @Test("after expiry, handshakes carry the last refresh's token (none before the first expiry)")
    func refreshedTokenAfterExpiry() {
        let run = Self.credentialsRun(timing: .afterExpiry) { $0.provider }
        #expect(run.violations.isEmpty, "\(run.violations)")
        #expect(run.tokens == [nil, nil, 1, 1], "tokens on the wire: \(run.tokens)")
    }

    @Test("a provider that hands out its first token again is caught: the handshake's token is not fresh")
    func staleTokenCaught() {
        let run = Self.credentialsRun(timing: .beforeEveryConnect) { issuer in
            let first = Mutex<[Endpoint.Header]?>(nil)
            let fetch = issuer.provider
            return {
                if let cached = first.withLock({ $0 }) { return cached }
                let headers = try await fetch()
                first.withLock { $0 = headers }
                return headers
            }
        }
        #expect(run.violations.map(\.rule) == [.freshCredentialsPerHandshake], "\(run.violations)")
        #expect(run.tokens == [1, 1, 1, 1])
    }
}
