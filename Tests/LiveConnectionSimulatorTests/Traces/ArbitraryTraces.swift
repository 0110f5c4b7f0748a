import LiveConnection
import LiveConnectionSimulator

/// Seeded generators of every kind of schedule, configuration and trace, including the
/// awkward corners (empty strings, quotes, backslashes, line breaks, combining marks,
/// nanosecond times), for round-trip and fuzz tests.
struct ArbitraryTraces {
    var random: Xoshiro256StarStar

    init(seed: UInt64) { random = Xoshiro256StarStar(seed: seed) }

    mutating func int(_ range: ClosedRange<Int>) -> Int {
        Int(random.uniform(in: Int64(range.lowerBound)...Int64(range.upperBound)))
    }

    mutating func pick<T>(_ values: [T]) -> T { values[int(0...values.count - 1)] }

    /// Strings from plain words to hostile text.
    mutating func text() -> String {
        let pieces = [
            "loans", "availability", "token expired", "", " ", "a\"b", "back\\slash", "line\nbreak", "tab\there",
            "crlf\r\n", "é", "e\u{301}", "\u{301}leading combining", "日本語", "emoji 🚀", "\u{0}", "\u{7F}\u{85}",
            "\u{2028}", "\u{FEFF}bom", "key=value", "#hash", "=", "\"", "x", "ms", "12ms", "off",
        ]
        var result = ""
        for _ in 0..<int(1...3) { result += pick(pieces) }
        return result
    }

    /// A duration exact to the nanosecond, sometimes round, up to about an hour.
    mutating func duration(maximumSeconds: Int64 = 3600) -> Duration {
        switch int(0...3) {
        case 0: .seconds(Int64(int(0...Int(maximumSeconds))))
        case 1: .milliseconds(Int64(int(0...Int(maximumSeconds) * 1000)))
        case 2: .nanoseconds(Int64(random.uniform(below: UInt64(maximumSeconds) * 1_000_000_000)))
        default: .zero
        }
    }

    mutating func positiveDuration() -> Duration { duration(maximumSeconds: 100) + .nanoseconds(1) }

    mutating func action() -> SimulationAction {
        switch int(0...23) {
        case 0: .refuseConnections(random.chance(0.5))
        case 1: .failHandshakes(status: random.chance(0.3) ? nil : pick([401, 403, 500, 503]))
        case 2: .hangHandshakes(random.chance(0.5))
        case 3: .broadcast(topic: text(), text: text())
        case 4: .closeConnection(code: CloseCode(UInt16(truncatingIfNeeded: random.nextWord())), reason: text())
        case 5: .resetConnection
        case 6: .freeze
        case 7: .thaw
        case 8: .setLatency(duration(maximumSeconds: 5))
        case 9: .restartServer
        case 10: .setIdleTimeout(random.chance(0.3) ? nil : positiveDuration())
        case 11:
            random.chance(0.5)
                ? .deliverStale(pick(StaleCallback.allCases))
                : .deliverStale(pick([.message, .error, .close, .pong]), after: duration(maximumSeconds: 30))
        case 12: .duplicateNextCallback
        case 13: .delaySendCompletion
        case 14: .setForeground(false)
        case 15: .setForeground(true)
        case 16: .connect(endpoint: int(0...3))
        case 17:
            random.chance(0.5)
                ? .disconnect
                : .disconnectWith(code: CloseCode(UInt16(truncatingIfNeeded: random.nextWord())), reason: text())
        case 18: .send(text: text())
        case 19: .subscribe(text())
        case 20:
            .hostile(
                pick([
                    nil, .acceptThenClose(CloseCode(UInt16(truncatingIfNeeded: random.nextWord()))), .malformedFrame,
                    .slowHandshake(positiveDuration()),
                ]))
        case 21: .ping(timeout: positiveDuration())
        case 22: .path(viable: random.chance(0.5))
        default: .unsubscribe(text())
        }
    }

    /// A schedule of up to `maximumLength` actions, in time order.
    mutating func schedule(maximumLength: Int = 40) -> [ScheduledAction] {
        var time = Duration.zero
        return (0..<int(0...maximumLength)).map { _ in
            if random.chance(0.7) { time += duration(maximumSeconds: 30) }
            return ScheduledAction(at: time, action())
        }
    }

    mutating func backoff() -> BackoffPolicy {
        switch int(0...5) {
        case 0: .fullJitter(base: positiveDuration(), cap: positiveDuration())
        case 1: .equalJitter(base: positiveDuration(), cap: positiveDuration())
        case 2: .decorrelatedJitter(base: positiveDuration(), cap: positiveDuration())
        case 3:
            .proportionalJitter(
                initial: positiveDuration(), multiplier: 1 + random.unitDouble() * 3, jitter: random.unitDouble(),
                maximum: positiveDuration())
        case 4: .exponential(base: positiveDuration(), cap: positiveDuration())
        default: .table((0..<int(1...8)).map { _ in duration(maximumSeconds: 60) })
        }
    }

    mutating func codes() -> Set<CloseCode> {
        Set((0..<int(0...3)).map { _ in CloseCode(UInt16(int(1000...4999))) })
    }

    mutating func configuration() -> ConnectionConfiguration {
        var configuration = ConnectionConfiguration()
        configuration.heartbeatInterval = positiveDuration()
        configuration.heartbeatTimeout = positiveDuration()
        configuration.connectTimeout = positiveDuration()
        configuration.backoff = backoff()
        configuration.terminalCloseCodes = codes()
        configuration.refreshCloseCodes = codes()
        configuration.terminalHandshakeStatuses = Set((0..<int(0...2)).map { _ in int(400...599) })
        configuration.refreshHandshakeStatuses = Set((0..<int(0...2)).map { _ in int(400...599) })
        configuration.resume = random.chance(0.5)
        if random.chance(0.5) { try? configuration.limitAttempts(to: int(1...Int.max - 1)) }
        if random.chance(0.5) { configuration.credentialsTiming = .beforeEveryConnect }
        return configuration
    }

    mutating func strategy() -> StrategyChoice {
        switch int(0...2) {
        case 0: .fifo
        case 1: .random(seed: random.nextWord())
        default: .pct(seed: random.nextWord(), depth: int(1...5), expectedSteps: int(1...100_000))
        }
    }

    /// Observed lines as a run writes them: single-line texts.
    mutating func observed() -> [ObservedEvent] {
        var time = Duration.zero
        return (0..<int(0...10)).map { _ in
            time += duration(maximumSeconds: 5)
            let text = pick([
                "phase open", "input failed g2 \"ECONNRESET\"", "effect send g1 subscribe loans", "", "  spaced  ",
                "é 🚀",
            ])
            return ObservedEvent(at: time, text)
        }
    }

    mutating func trace() -> Trace {
        let scenario = Scenario(
            seed: random.nextWord(), configuration: configuration(), strategy: strategy(),
            duration: positiveDuration(), schedule: schedule(), managerSeed: random.nextWord(),
            managerWords: (0..<int(0...3)).map { _ in random.nextWord() }, logCapacity: int(0...5000),
            feedTopic: text())
        return Trace(
            scenario: scenario,
            generator: GeneratorID(name: pick(["swarm", "hand-written", "model checker", "x"]), version: int(0...9)),
            variant: random.chance(0.5)
                ? nil : pick(["skips-resubscribe", "ignores generation", "never-resets-backoff"]),
            expectation: random.chance(0.3)
                ? nil
                : (random.chance(0.5)
                    ? .pass : .violation(pick(["at-most-one-live-transport", "resubscribe before open"]))),
            claims: random.chance(0.7) ? nil : pick(["backoff=full-jitter dead-peer=35000ms", "x"]),
            test: random.chance(0.6) ? nil : pick(["Suite/test", "Chat Tests/shows every message", "t"]),
            keptPerforms: random.chance(0.6) ? nil : (0..<int(0...4)).map { $0 * 3 + 1 },
            observed: random.chance(0.5) ? [] : observed())
    }
}
