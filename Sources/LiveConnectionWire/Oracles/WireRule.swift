import LiveConnection

/// A named rule judged from what the simulated server sees of one client (or of a herd).
///
/// ```swift
/// for rule in WireRule.all { print(rule.name, "—", rule.summary) }
/// result.violations.first?.rule == .oneSocket
/// ```
///
/// Each rule is stated without reference to any client's code: from the wire events
/// (attempts, opens, frames, pings, closes, server endings), the client's claims, the
/// app's intents, and — only for ``openAfterHandshake`` and ``resubscribedBeforeOpen`` —
/// the client's optional "connected" probe. `docs/guide.md` says what each proves.
public struct WireRule: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// A stable, kebab-case name (command line, traces).
    public let name: String
    /// One line: what must hold.
    public let summary: String

    public var description: String { name }

    public static func < (lhs: WireRule, rhs: WireRule) -> Bool {
        all.firstIndex(of: lhs)! < all.firstIndex(of: rhs)!
    }

    public static let oneSocket = WireRule(
        name: "wire-one-socket",
        summary: "a client holds at most one open socket (a second one may overlap the first for 2 s)")
    public static let resubscribedBeforeOpen = WireRule(
        name: "wire-resubscribed-before-open",
        summary: "every socket sends every subscription (and the resume cursor, if claimed) before the client says open, and within 2 s")
    public static let openAfterHandshake = WireRule(
        name: "wire-open-after-handshake",
        summary: "the client says connected only while it holds a socket whose handshake completed")
    public static let backoffWithinClaim = WireRule(
        name: "wire-backoff-within-claim",
        summary: "each automatic retry's delay lies within the claimed distribution for the failures seen on the wire")
    public static let backoffFit = WireRule(
        name: "wire-backoff-fit",
        summary: "the retry delays of a run fit the claimed distribution (pooled KS, α = 1e-6)")
    public static let herdSpread = WireRule(
        name: "wire-herd-spread",
        summary: "clients dropped together retry spread over their first window like full jitter, without ties (KS and birthday bound, α = 1e-6)")
    public static let deadPeerGivenUp = WireRule(
        name: "wire-dead-peer-given-up",
        summary: "a socket whose peer went silent is given up within the claimed P + T (+ 2 s for round trips)")
    public static let quietAfterStop = WireRule(
        name: "wire-quiet-after-stop",
        summary: "after a disconnect, or a terminal close code or status, nothing is opened, sent or pinged until the next start")
    public static let retryLimitKept = WireRule(
        name: "wire-retry-limit-kept",
        summary: "a client that claims to give up after N attempts makes at most N automatic attempts in a row")
    public static let reconnects = WireRule(
        name: "wire-reconnects",
        summary: "started, active and not stopped, with a healthy server: a socket is open again within the claimed bounds")
    public static let attemptRate = WireRule(
        name: "wire-attempt-rate",
        summary: "connection attempts per minute stay within what the claimed backoff and the disruptions explain")

    /// Every rule, in the order reports list them.
    public static let all: [WireRule] = [
        .oneSocket, .resubscribedBeforeOpen, .openAfterHandshake, .backoffWithinClaim, .backoffFit, .herdSpread,
        .deadPeerGivenUp, .quietAfterStop, .retryLimitKept, .reconnects, .attemptRate,
    ]

    /// The rule with this name.
    public static func named(_ name: String) -> WireRule? { all.first { $0.name == name } }
}

/// One broken wire rule: which, when, which client, and what the server saw.
public struct WireViolation: Hashable, Sendable, CustomStringConvertible {
    public var rule: WireRule
    public var at: Duration
    /// The client (0 in a single-client run; its index in a herd; -1 for the herd as a whole).
    public var client: Int
    public var detail: String

    public var description: String {
        "\(at.traceFormatted) \(rule.name) (\(client < 0 ? "the herd" : "client \(client)")): \(detail)"
    }
}
