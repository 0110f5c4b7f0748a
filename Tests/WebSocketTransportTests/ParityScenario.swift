import LiveConnection
import LiveConnectionSimulator
import Testing

/// A scenario written once and played in both worlds: the steps a test takes, in the
/// simulator's own vocabulary (``SimulationAction``), the events it waits for between them,
/// and what the app and the server must have seen at the end.
///
/// ```swift
/// ParityScenario(name: "token expired", steps: [
///     .act(.subscribe("loans")), .act(.connect(endpoint: 0)), .await(.open),
///     .act(.closeConnection(code: .tokenExpired, reason: "token expired")), .await(.open),
/// ], expected: …)
/// ```
///
/// Virtual time and real time differ in how long things take, never in what happens: the
/// outcome leaves out the one value that is drawn at random (a wait's delay) and keeps the
/// rest — every phase with its reason, every message with its sequence number, and the
/// server's record of which connection subscribed to what.
struct ParityScenario: Sendable, CustomTestStringConvertible {
    enum Step: Sendable {
        /// An app intent or a server control, done now.
        case act(SimulationAction)
        /// Wait until the app sees this, after the last action (or the last awaited event).
        case await(Awaited)
    }

    /// An event the app can wait for.
    enum Awaited: Sendable, CustomStringConvertible {
        case open
        case waiting
        case message(sequence: UInt64)
        /// The server's subscription log holds this many entries: the app's "open" means the
        /// transport took the subscribe, not that the server read it, and a fault applied
        /// before the server reads it on real sockets moves it after the next connection's.
        case serverLog(entries: Int)

        func matches(_ event: ConnectionEvent) -> Bool {
            switch (self, event) {
            case (.open, .phase(.open)): true
            case (.waiting, .phase(.waiting)): true
            case (.message(let expected), .message(_, let sequence)): sequence == expected
            default: false
            }
        }

        var description: String {
            switch self {
            case .open: "open"
            case .waiting: "waiting"
            case .message(let sequence): "message seq=\(sequence)"
            case .serverLog(let entries): "\(entries) entries in the server's subscription log"
            }
        }
    }

    let name: String
    var configuration = ParityScenario.configuration
    let steps: [Step]
    let expected: ParityOutcome

    var testDescription: String { name }

    /// A quiet heartbeat where it is not the subject (``heartbeatConfiguration`` where it is),
    /// so a loaded machine's late pong is not a story of its own.
    static let configuration: ConnectionConfiguration = {
        var configuration = ConnectionConfiguration()
        configuration.heartbeatInterval = .seconds(30)
        configuration.heartbeatTimeout = .seconds(30)
        configuration.connectTimeout = peerConnectTimeout
        configuration.backoff = .fullJitter(base: .milliseconds(100), cap: .seconds(1))
        return configuration
    }()

    /// A ping every 500 ms with 2 s for its pong, and a first retry no sooner than 1 s after
    /// the miss (equal jitter: U(1 s, 2 s)). The heartbeat scenarios change the server between
    /// the miss and the reconnect (thaw it, lift its idle timeout); with full jitter's
    /// U(0, 100 ms) the reconnect could beat that step on a loaded machine (CI under
    /// AddressSanitizer saw it open a second frozen, or idle-timed, connection and miss a
    /// second heartbeat). The pong's 2 s is for the same machine: with 500 ms, a live
    /// connection's pong came late under AddressSanitizer and counted as a second miss.
    static let heartbeatConfiguration: ConnectionConfiguration = {
        var configuration = ParityScenario.configuration
        configuration.heartbeatInterval = .milliseconds(500)
        configuration.heartbeatTimeout = .seconds(2)
        configuration.backoff = .equalJitter(base: .seconds(2), cap: .seconds(2))
        return configuration
    }()
}

/// What the app saw (through `events()`) and what the server recorded.
struct ParityOutcome: Hashable, Sendable, CustomStringConvertible {
    /// Phases as the app saw them, a wait's drawn delay left out: `waiting reason="…"`.
    var phases: [String]
    /// Messages delivered, as `seq text`.
    var messages: [String]
    /// The server's subscription log, `connection:topic` (connections numbered from 1).
    var subscriptions: [String]
    /// What the simulator's invariant monitor found, in explore's words (none, in both worlds).
    var violations: [String]

    init(phases: [String], messages: [String], subscriptions: [String], violations: [String] = []) {
        self.phases = phases
        self.messages = messages
        self.subscriptions = subscriptions
        self.violations = violations
    }

    init(events: [ConnectionEvent], subscriptions: [String], violations: [String]) {
        phases = events.compactMap { event in
            guard case .phase(let phase) = event else { return nil }
            return Self.withoutDelay(phase)
        }
        messages = events.compactMap { event in
            guard case .message(let message, let sequence) = event else { return nil }
            return "\(sequence.map(String.init) ?? "-") \(message)"
        }
        self.subscriptions = subscriptions
        self.violations = violations
    }

    /// `waiting 73ms reason="…"` → `waiting reason="…"`: the delay is the backoff's draw.
    static func withoutDelay(_ phase: Phase) -> String {
        let text = phase.description
        guard text.hasPrefix("waiting "), let space = text.dropFirst(8).firstIndex(of: " ") else { return text }
        return "waiting" + text[space...]
    }

    var description: String {
        "phases: \(phases)\nmessages: \(messages)\nsubscriptions: \(subscriptions)\nviolations: \(violations)"
    }
}

/// A world a scenario can be played in.
protocol ParityStage: Sendable {
    /// Does an app intent on the manager or a server control on the server.
    func perform(_ action: SimulationAction) async throws
    /// Lets this world's time pass a little (10 ms) before looking again.
    func pause() async throws
    /// The server's `connection:topic` log.
    var subscriptionLog: [String] { get }
    /// Ends the timed invariants' judgement (what follows is teardown) and returns every
    /// violation the simulator's monitor found in this world, in explore's words.
    func verdict() -> [String]
}

enum ParityError: Error, CustomStringConvertible {
    case neverSaw(ParityScenario.Awaited, after: Int, events: [ConnectionEvent])
    case unsupported(SimulationAction)
    case neverFinished(String)

    var description: String {
        switch self {
        case .neverSaw(let awaited, let mark, let events):
            "never saw \(awaited) after event \(mark) within 30 s; events: \(events.map(\.description))"
        case .unsupported(let action): "the real world has no control for '\(action.traceWords)'"
        case .neverFinished(let name): "'\(name)' did not finish within the real world's time limit"
        }
    }
}

extension ParityScenario {
    /// Plays the steps on `stage`, reading what the app sees from `log`; returns the outcome.
    func play(on stage: some ParityStage, log: EventLog) async throws -> ParityOutcome {
        var mark = 0
        for step in steps {
            switch step {
            case .act(let action):
                mark = await log.count
                try await stage.perform(action)
            case .await(let awaited):
                var pauses = 0
                while true {
                    let events = await log.events
                    if case .serverLog(let entries) = awaited {
                        if stage.subscriptionLog.count >= entries { break }
                    } else if let index = events[min(mark, events.count)...].firstIndex(where: awaited.matches) {
                        mark = index + 1
                        break
                    }
                    pauses += 1
                    if pauses > 3_000 { throw ParityError.neverSaw(awaited, after: mark, events: events) }
                    try await stage.pause()
                }
            }
        }
        return ParityOutcome(
            events: await log.events, subscriptions: stage.subscriptionLog, violations: stage.verdict())
    }
}
