import LiveConnection
public import LiveConnectionRules
import SimulationKernel
public import WireHistory

/// Judges a recorded wire history with the simulated world's ``WireJudge``: the same rules,
/// names, words and statistics, over what a real server saw.
///
/// ```swift
/// let verdict = try HistoryJudgement(claims: WireClaimsFile.defaults, tolerance: .milliseconds(250))
///     .judge(path: "run.jsonl")
/// for violation in verdict.violations { print(verdict.describe(violation)) }
/// ```
///
/// The judge's virtual clock is driven to each record's instant (checking the time rules at
/// every whole second between records, so a silence is judged near when it outlived its
/// bound), the record is applied to a ``RecordedWire``, and the rules run; at the history's
/// `end` record (or its last record) the time rules are judged once more, and the
/// statistical rules on the whole run. Every client is taken to be started when it first
/// attempts (a process started to run it), and never stopped by its app: only a terminal
/// close code or status stops one.
public struct HistoryJudgement: Sendable {
    public var claims: WireClaims
    public var topics: [String]
    /// Added to every time and delay bound: a real clock's lateness and a round trip.
    public var tolerance: Duration

    public init(claims: WireClaims, topics: [String] = [], tolerance: Duration = .milliseconds(250)) {
        self.claims = claims
        self.topics = topics
        self.tolerance = tolerance
    }

    /// Reads and judges the history at `path`, streaming it.
    public func judge(path: String) throws(WireHistoryError) -> HistoryVerdict {
        var reader = try WireHistoryReader(path: path)
        let idle = reader.header.server["idleTimeout"].flatMap(Double.init).map {
            Duration.microseconds(Int64($0 * 1e6))
        }
        let wire = RecordedWire(idleTimeout: idle)
        let clock = VirtualClock()
        let judge = WireJudge(
            claims: claims, clients: nil, topics: topics, wire: wire, clock: clock, tolerance: tolerance)
        var records = 0
        var endedAt: Duration?
        var last: Duration = .zero
        while let record = try reader.next() {
            records += 1
            last = record.at
            move(clock, to: .start + record.at, judge: judge)
            if record.event == .end {
                if endedAt == nil {
                    judge.endRun()
                    endedAt = record.at
                }
                continue
            }
            if wire.apply(record), endedAt == nil { judge.disruption() }
            judge.check()
        }
        if endedAt == nil { judge.endRun() }
        judge.finish()
        return HistoryVerdict(
            header: reader.header, violations: judge.violations, clients: wire.clients, records: records,
            duration: endedAt ?? last, checks: judge.checks)
    }

    /// Moves the clock to `instant`, judging the time rules at each whole second on the way.
    private func move(_ clock: VirtualClock, to instant: VirtualClock.Instant, judge: WireJudge) {
        while instant - clock.now > .seconds(1) {
            _ = clock.advance(by: .seconds(1))
            judge.check()
        }
        if instant > clock.now {
            _ = clock.advance(to: instant)
            judge.check()
        }
    }
}

/// What ``HistoryJudgement`` found in one history.
public struct HistoryVerdict: Sendable {
    public var header: WireHistoryHeader
    /// The first violation of each rule per client, in the order found; `client` indexes ``clients``.
    public var violations: [Violation]
    /// The clients' identities (query parameter, header or address), in order of first attempt.
    public var clients: [String]
    public var records: Int
    /// From the origin to the `end` record (or the last record).
    public var duration: Duration
    public var checks: Int

    public var passed: Bool { violations.isEmpty }

    /// A violation with its client named as the history names it.
    public func describe(_ violation: Violation) -> String {
        let client = violation.client ?? 0  // the wire's judge names a client in every violation
        let who =
            client < 0
            ? "the herd"
            : clients.indices.contains(client) ? "client \(clients[client])" : "client ?"
        return "\(violation.at.traceFormatted) \(violation.rule.name) (\(who)): \(violation.detail)"
    }
}
