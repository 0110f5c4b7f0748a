import LiveConnection
import LiveConnectionSimulator
import Testing

/// The invariant monitor reads the world once per step (`WorldTruth.answer(_:into:)`): the
/// simulated network and the observed transport answer under one lock, and must answer
/// exactly as their questions asked one at a time, or a rule would judge a different world.
@Suite("World snapshot")
struct WorldSnapshotTests {
    static let endpoint = Scenario.endpoint(0)

    /// Every question the monitor may ask, around the interesting indices of `network`.
    static func questions(links: Int, commands: Int) -> [WorldQuestions] {
        var all: [WorldQuestions] = []
        for linksFrom in [0, max(0, links - 1), links, links + 3] {
            for commandsFrom in [0, max(0, commands - 1), commands] {
                for watching: Generation? in [nil, 1, 2, 9] {
                    for timeChecks in [false, true] {
                        all.append(
                            WorldQuestions(
                                linksFrom: linksFrom, commandsFrom: commandsFrom, watching: watching,
                                timeChecks: timeChecks, heartbeatInterval: .seconds(25)))
                    }
                }
            }
        }
        return all
    }

    /// The differences between the one-lock snapshot and the questions one at a time, for
    /// every question at this instant ("" when none).
    static func differences(in network: some WorldTruth, links: Int, commands: Int, at label: String) -> [String] {
        var problems: [String] = []
        for questions in Self.questions(links: links, commands: commands) {
            // One at a time first: it settles idle timeouts too, so both see the same world.
            let expected = network.answeredOneAtATime(questions)
            let got = network.snapshot(questions)
            func check<T: Equatable>(_ name: String, _ a: T, _ b: T) {
                if a != b { problems.append("\(label) \(questions) \(name): \(b), one at a time \(a)") }
            }
            check("newLinks", expected.newLinks, got.newLinks)
            check("held", expected.held, got.held)
            check("watched", expected.watched, got.watched)
            check("commandCount", expected.commandCount, got.commandCount)
            check(
                "newCommands", expected.newCommands.map { "\($0.connection):\($0.text)" },
                got.newCommands.map { "\($0.connection):\($0.text)" })
            check("replayableFrom", expected.replayableFrom, got.replayableFrom)
            check("welcomesConnections", expected.welcomesConnections, got.welcomesConnections)
            check("lastSendDelayedAt", expected.lastSendDelayedAt, got.lastSendDelayedAt)
        }
        return problems
    }

    @Test("the simulated network's snapshot answers as its questions one at a time")
    func snapshotMatchesQuestions() throws {
        let clock = VirtualClock()
        let network = SimulatedNetwork(clock: clock, logCapacity: 3)
        let result = Simulation.run(clock: clock, until: .seconds(3600)) {
            var problems = Self.differences(in: network, links: 0, commands: 0, at: "empty")
            network.setIdleTimeout(.seconds(10))
            let first = try await network.connect(to: Self.endpoint, generation: 1)
            try await first.send(.text(#"{"type":"subscribe","topic":"feed"}"#))
            try await first.send(.text("command-1"))
            for text in ["a", "b", "c", "d"] { network.broadcast(topic: "feed", text: text) }
            problems += Self.differences(in: network, links: 1, commands: 1, at: "one open")
            network.delayNextSendCompletion()
            try await clock.sleep(for: .seconds(11))
            problems += Self.differences(in: network, links: 1, commands: 1, at: "idle dropped")
            let second = try await network.connect(to: Self.endpoint, generation: 2)
            try await second.send(.text("command-2"))
            network.freeze()
            try await clock.sleep(for: .seconds(1))
            problems += Self.differences(in: network, links: 2, commands: 2, at: "two held, frozen")
            await first.close(code: .normal, reason: "done")
            network.thaw()
            network.setHostile(.malformedFrame)
            problems += Self.differences(in: network, links: 2, commands: 2, at: "one closed, hostile")
            return problems
        }
        let problems = try result.get()
        let count = problems.count
        #expect(count == 0, "the first of them:\n\(problems.prefix(5).joined(separator: "\n"))")
    }

    @Test("an observed transport's snapshot answers as its questions one at a time")
    func observedSnapshotMatchesQuestions() throws {
        let clock = VirtualClock()
        let network = SimulatedNetwork(clock: clock)
        let observed = ObservedTransport(network, now: { clock.now })
        let result = Simulation.run(clock: clock, until: .seconds(3600)) {
            var problems = Self.differences(in: observed, links: 0, commands: 0, at: "empty")
            let first = try await observed.connect(to: Self.endpoint, generation: 1)
            try await first.send(.text(#"{"type":"subscribe","topic":"feed"}"#))
            try await first.send(.text("command-1"))
            problems += Self.differences(in: observed, links: 1, commands: 1, at: "one open")
            let second = try await observed.connect(to: Self.endpoint, generation: 2)
            try await second.send(.text("command-2"))
            await first.close(code: .normal, reason: "done")
            problems += Self.differences(in: observed, links: 2, commands: 2, at: "one closed")
            return problems
        }
        let problems = try result.get()
        let count = problems.count
        #expect(count == 0, "the first of them:\n\(problems.prefix(5).joined(separator: "\n"))")
    }

    @Test("a snapshot settles idle timeouts only when the questions one at a time would")
    func settlesAsTheQuestionsDid() throws {
        // Two networks driven alike; one asked without the time checks, the other asked the
        // same through its questions: their idle-drop counts must agree at every stage.
        func run(snapshot: Bool, linksFrom: Int, timeChecks: Bool) throws -> [Int] {
            let clock = VirtualClock()
            let network = SimulatedNetwork(clock: clock)
            let result = Simulation.run(clock: clock, until: .seconds(3600)) {
                network.setIdleTimeout(.seconds(10))
                _ = try await network.connect(to: Self.endpoint, generation: 1)
                try await clock.sleep(for: .seconds(11))
                let questions = WorldQuestions(
                    linksFrom: linksFrom, commandsFrom: 0, watching: 1, timeChecks: timeChecks,
                    heartbeatInterval: .seconds(25))
                var counts = [network.statistics.idleDrops]
                _ = snapshot ? network.snapshot(questions) : network.answeredOneAtATime(questions)
                counts.append(network.statistics.idleDrops)
                return counts
            }
            return try result.get()
        }
        for linksFrom in [0, 1] {
            for timeChecks in [false, true] {
                let asked = try run(snapshot: false, linksFrom: linksFrom, timeChecks: timeChecks)
                let snapped = try run(snapshot: true, linksFrom: linksFrom, timeChecks: timeChecks)
                #expect(
                    snapped == asked,
                    "links from \(linksFrom), time checks \(timeChecks): snapshot \(snapped), one at a time \(asked)")
            }
        }
    }
}
