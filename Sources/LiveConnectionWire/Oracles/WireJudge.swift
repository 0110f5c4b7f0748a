import Foundation
import LiveConnection
public import LiveConnectionRules
public import SimulationKernel

import typealias LiveConnection.Mutex

/// Judges every client of a run from the wire: reads the simulated server's events as
/// they happen, hears the app's intents and the optional probes, and records each rule's
/// first violation per client.
///
/// ```swift
/// let judge = WireJudge(claims: kind.claims, clients: 1, topics: ["feed"], network: network, clock: clock)
/// judge.intent(.connect(endpoint))
/// judge.check()        // after every scheduled action and wire event
/// judge.endRun()       // the time rules at the end instant
/// judge.finish()       // the statistical rules, on the whole run
/// judge.violations
/// ```
///
/// Everything it knows comes from the wire it reads (``JudgedWire``: the simulated network, or
/// a history recorded from a real server): its events (with the network path's changes) and
/// its truths about held sockets and the server; the schedule's disruptions; and what the
/// client's probe says; never from the client's internals.
public final class WireJudge: Sendable {
    struct State {
        var ledgers: [ClientLedger]
        var consumed = 0
        /// Socket → client, and attempt → client, from the URLs the attempts named.
        var socketOwner: [Int: Int] = [:]
        var attemptOwner: [Int: Int] = [:]
        var disruptions: [VirtualClock.Instant] = []
        var healthySince: VirtualClock.Instant?
        var violations: [Violation] = []
        /// The rules already reported, per client: each is reported once, so a check whose
        /// rule a client already broke is skipped (a failing client's sockets pile up, and
        /// re-checking them was most of a failing run's cost).
        var reported: Set<ReportedRule> = []
        var checks = 0
        /// Network path changes read from the wire (lost or back).
        var pathChanges = 0
        /// The run is over: the clients are being torn down, and what they do no longer counts.
        var ended = false
    }

    let claims: WireClaims
    let network: any JudgedWire
    let clock: VirtualClock
    /// Clients appear as the wire names them (a recorded history), rather than a fixed count.
    let growsClients: Bool
    let topics: [String]
    /// Added to every time bound and delay bound: a real clock's lateness (zero in simulation).
    public let tolerance: Duration
    let state: Mutex<State>
    /// Attempts per minute the claimed backoff explains on its own (as the manager's own monitor computes it).
    let rateAllowance: Int
    /// Started, active, healthy for this long: a socket must be open.
    let reconnectBound: Duration
    /// A second socket may overlap the first this long (its close is queued behind its writes).
    let overlapGrace: Duration
    /// Round trips and a stalled write on top of a claimed bound.
    let slack: Duration

    /// A judge of any wire.
    /// - Parameters:
    ///   - claims: what the clients promise.
    ///   - clients: how many clients there are (nil: as many as the wire names, each started
    ///     when it first attempts, as a process started to run its client is).
    ///   - topics: what every client subscribes to on every socket.
    ///   - wire: the events and truths to judge.
    ///   - clock: its instant is the judge's now; the caller moves it.
    ///   - tolerance: added to every bound, for a real clock (zero in simulation).
    public init(
        claims: WireClaims, clients: Int?, topics: [String], wire: any JudgedWire, clock: VirtualClock,
        tolerance: Duration = .zero
    ) {
        self.claims = claims
        self.network = wire
        self.clock = clock
        self.topics = topics
        self.tolerance = tolerance
        growsClients = clients == nil
        slack = .seconds(2) + tolerance
        overlapGrace = .seconds(2) + tolerance
        let ledgers = (0..<(clients ?? 0)).map {
            ClientLedger(index: $0, claims: claims, topics: topics, tolerance: tolerance)
        }
        state = Mutex(State(ledgers: ledgers))
        var floor = Double.infinity
        for failures in 1...64 { floor = min(floor, claims.backoff.distribution(failures, nil).meanSeconds) }
        rateAllowance = 10 + Int(3 * 60 / max(floor, 0.001))
        reconnectBound = claims.connectTimeout + claims.deadPeerBound * 2 + claims.backoff.maximum + slack
    }

    /// Every violation so far (the first of each rule per client), in the order found.
    public var violations: [Violation] { state.withLock { $0.violations } }
    public var hasViolation: Bool { state.withLock { !$0.violations.isEmpty } }
    /// When the first violation was found (from the start of the run).
    public var firstViolationAt: Duration? { state.withLock { $0.violations.first?.at } }
    public var checks: Int { state.withLock { $0.checks } }
    /// How many times the network path went or came back (read from the wire).
    public var pathChanges: Int { state.withLock { $0.pathChanges } }

    /// The client a URL names (`?client=K`; 0 without one).
    public static func client(of url: String) -> Int {
        guard let range = url.range(of: "client=") else { return 0 }
        return Int(url[range.upperBound...].prefix { $0.isNumber }) ?? 0
    }

    // MARK: Inputs

    /// The app did `intent` on client `client` (all clients when nil).
    public func intent(_ intent: AppIntent, client: Int? = nil) {
        let now = clock.now
        state.withLock { state in
            ingest(&state)
            for index in state.ledgers.indices where client == nil || client == index {
                state.ledgers[index].intent(intent, at: now)
            }
        }
    }

    /// Something outside the clients changed the world (a fault, a restart): the attempt
    /// rate may rise by two, and the healthy stretch starts again.
    public func disruption() {
        let now = clock.now
        state.withLock { state in
            state.disruptions.append(now)
            state.disruptions.removeAll { $0 < now - .seconds(60) }
            state.healthySince = nil
        }
    }

    /// Before asking client `client` whether it is connected: what would be wrong with a
    /// "yes" against the wire as read now. Hand it back with the answer to ``answer(_:connected:)``.
    public func ask(client: Int) -> WireQuestion {
        state.withLock { state in
            ingest(&state)
            return WireQuestion(client: client, problem: probeProblem(state.ledgers[client]))
        }
    }

    /// The client's answer. Its true moment lies between the question and now, so a "yes"
    /// is judged wrong only if it is wrong against the wire at both ends.
    public func answer(_ question: WireQuestion, connected: Bool) {
        let now = clock.now
        state.withLock { state in
            guard connected, !state.ended, question.problem != nil else { return }
            state.checks += 1
            ingest(&state)
            guard let after = probeProblem(state.ledgers[question.client]) else { return }
            report(&state, after.rule, question.client, now, "says connected at \(now), but \(after.detail)")
        }
    }

    /// What is wrong with a client saying "connected", against the wire as read so far.
    private func probeProblem(_ ledger: ClientLedger) -> (rule: Rule, detail: String)? {
        // The newest socket the client has not closed (the server may have ended it: the client may not know yet).
        guard let socket = ledger.unclosed.last else {
            return (rule: Rule.wireOpenAfterHandshake, detail: "it holds no socket whose handshake completed")
        }
        let missing: [String] = ledger.missing(on: socket)
        if missing.isEmpty { return nil }
        let detail: String = "socket \(socket) has not sent \(missing)"
        return (rule: Rule.wireResubscribedBeforeOpen, detail: detail)
    }

    /// Reads new wire events and runs the rules that depend on time.
    public func check() {
        let now = clock.now
        state.withLock { state in
            ingest(&state)
            guard !state.ended else { return }
            checkTime(&state, now: now)
        }
    }

    /// The run is over: judges the time rules at the end instant, then ignores what
    /// happens while the clients are torn down. Calling it again does nothing.
    public func endRun() {
        let now = clock.now
        state.withLock { state in
            guard !state.ended else { return }
            ingest(&state)
            checkTime(&state, now: now)
            state.ended = true
        }
    }

    // MARK: Reading the wire

    func ingest(_ state: inout State) {
        let events = network.wireEvents(from: state.consumed)
        state.consumed += events.count
        for event in events {
            state.checks += 1
            let now = event.at
            var found: [(Rule, String)] = []
            func note(_ rule: Rule, _ detail: String) { found.append((rule, detail)) }
            var owner: Int?
            switch event.kind {
            case .attempt(let id, let url):
                let client = ledger(for: network.client(ofAttempt: id, url: url), &state, at: now)
                owner = client
                state.attemptOwner[id] = client
                let recent = state.disruptions.filter { $0 >= now - .seconds(60) }.count
                state.ledgers[client].attempt(at: now, rateAllowance: rateAllowance + 2 * recent, report: note)
                state.ledgers[client].attemptsInFlight[id] = now
            case .attemptFailed(let id, let reason):
                guard let client = state.attemptOwner[id] else { continue }
                state.ledgers[client].attemptsInFlight[id] = nil
                state.ledgers[client].attemptFailed(reason: reason, at: now)
            case .opened(let id, let socket):
                guard let client = state.attemptOwner[id] else { continue }
                state.socketOwner[socket] = client
                state.ledgers[client].attemptsInFlight[id] = nil
                state.ledgers[client].opened(socket: socket, at: now)
            case .sent(let socket, let text):
                guard let client = state.socketOwner[socket] else { continue }
                owner = client
                let writer = network.writer(of: socket)
                let draining: Bool = writer.lastStallEndedAt == now
                state.ledgers[client].sent(
                    socket: socket, text: text, at: now, drainingStall: draining,
                    heldBack: writer.stalled, lastStallEndedAt: writer.lastStallEndedAt,
                    report: note)
            case .pinged(let socket):
                guard let client = state.socketOwner[socket] else { continue }
                owner = client
                state.ledgers[client].pinged(socket: socket, at: now, report: note)
            case .ponged(let socket):
                guard let client = state.socketOwner[socket] else { continue }
                state.ledgers[client].ponged(socket: socket)
            case .closedByClient(let socket):
                guard let client = state.socketOwner[socket] else { continue }
                state.ledgers[client].closedByClient(socket: socket, at: now)
            case .endedByServer(let socket, _):
                guard let client = state.socketOwner[socket] else { continue }
                state.ledgers[client].endedByServer(socket: socket, at: now)
            case .told(let socket, let code):
                guard let client = state.socketOwner[socket] else { continue }
                state.ledgers[client].told(socket: socket, code: code, at: now, writer: network.writer(of: socket))
            case .path(let available):
                state.pathChanges += 1
                for index in state.ledgers.indices { state.ledgers[index].pathChanged(available: available, at: now) }
            }
            if let owner, !state.ended {
                for (rule, detail) in found { report(&state, rule, owner, now, detail) }
            }
        }
    }

    /// The ledger index of client `client`: clamped to the run's clients, or (a judge whose
    /// clients appear as the wire names them) a new ledger, started now, for a client not seen before.
    private func ledger(for client: Int, _ state: inout State, at now: VirtualClock.Instant) -> Int {
        guard growsClients else { return min(max(client, 0), state.ledgers.count - 1) }
        while state.ledgers.count <= client {
            var ledger = ClientLedger(index: state.ledgers.count, claims: claims, topics: topics, tolerance: tolerance)
            ledger.intent(.connect(Self.anyEndpoint), at: now)
            state.ledgers.append(ledger)
        }
        return client
    }

    /// The endpoint a started client of a recorded history is taken to dial (the ledger does not read it).
    static let anyEndpoint = Endpoint(url: URL(string: "ws://recorded.invalid/")!)

    func report(_ state: inout State, _ rule: Rule, _ client: Int, _ now: VirtualClock.Instant, _ detail: String) {
        guard state.reported.insert(ReportedRule(rule: rule.name, client: client)).inserted else { return }
        state.violations.append(Violation(rule: rule, judge: .wire, at: now.sinceStart, client: client, detail: detail))
    }
}

/// A rule a client was found breaking (reported once).
struct ReportedRule: Hashable {
    let rule: String
    let client: Int
}

extension WireJudge.State {
    /// Whether `client` was already found breaking `rule` (a check for it can be skipped).
    func hasReported(_ rule: Rule, _ client: Int) -> Bool {
        reported.contains(ReportedRule(rule: rule.name, client: client))
    }
}

/// A probe in flight: which client, and what a "yes" would contradict when it was asked.
public struct WireQuestion: Sendable {
    let client: Int
    let problem: (rule: Rule, detail: String)?
}
