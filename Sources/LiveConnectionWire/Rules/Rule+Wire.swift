public import LiveConnectionRules

extension Rule.Judge {
    /// The wire-level oracles (``WireJudge``), from what the simulated server sees of any client.
    public static let wire = Rule.Judge(rawValue: "wire")
}

extension Rule {
    // Judged from the wire (LiveConnectionWire), for any client: what the simulated server
    // sees of it, its claims, the app's intents and its optional "connected" probe — never
    // its code. Several restate a manager rule from the server's side (the `wire-` name keeps
    // them apart: they allow for round trips and judge against the client's own claims).

    /// Two live sockets: a second loop or a stale callback doubles the connection (restates `single-live-transport`).
    public static let wireOneSocket = Rule(
        "wire-one-socket", "a client holds at most one open socket (a second one may overlap the first for 2 s)",
        timeBounded: true)
    /// Messages lost across a drop: the new socket never asked again (restates `resubscribe-before-open`).
    public static let wireResubscribedBeforeOpen = Rule(
        "wire-resubscribed-before-open",
        "every socket sends every subscription (and the resume cursor, if claimed) before the client says open, and within 2 s",
        timeBounded: true)
    /// A "connected" set when the socket task starts, before any handshake (restates `open-only-after-handshake`).
    public static let wireOpenAfterHandshake = Rule(
        "wire-open-after-handshake",
        "the client says connected only while it holds a socket whose handshake completed")
    /// A counter reset too early, or never: the delay does not grow as claimed (restates `backoff-within-policy`).
    public static let wireBackoffWithinClaim = Rule(
        "wire-backoff-within-claim",
        "each automatic retry's delay lies within the claimed distribution for the failures seen on the wire",
        timeBounded: true)
    /// Delays inside the bounds but drawn from another distribution than the one claimed.
    public static let wireBackoffFit = Rule(
        "wire-backoff-fit", "the retry delays of a run fit the claimed distribution (pooled KS, α = 1e-6)",
        timeBounded: true)
    /// A thundering herd: no jitter, or too little, and every client retries at once.
    public static let wireHerdSpread = Rule(
        "wire-herd-spread",
        "clients dropped together retry spread over their first window like full jitter, without ties (KS and birthday bound, α = 1e-6)",
        timeBounded: true)
    /// Pings whose failure is ignored, or no pong deadline: a silent peer held for ever (restates `dead-peer-detected`).
    public static let wireDeadPeerGivenUp = Rule(
        "wire-dead-peer-given-up",
        "a socket whose peer went silent is given up within the claimed P + T (+ 2 s for round trips)",
        timeBounded: true)
    /// A reconnect after the user disconnected, or after a terminal close (restates `quiet-after-stop`).
    public static let wireQuietAfterStop = Rule(
        "wire-quiet-after-stop",
        "after a disconnect, or a terminal close code or status, nothing is opened, sent or pinged until the next start"
    )
    /// A retry limit that a fake "connected" keeps resetting, so it is never reached.
    public static let wireRetryLimitKept = Rule(
        "wire-retry-limit-kept",
        "a client that claims to give up after N attempts makes at most N automatic attempts in a row")
    /// A client that gave up, or whose loop died, while it was wanted (restates `eventually-open`).
    public static let wireReconnects = Rule(
        "wire-reconnects",
        "started, active and not stopped, with a healthy server: a socket is open again within the claimed bounds",
        timeBounded: true)
    /// A hot loop against an adversarial server (restates `no-hot-loop`).
    public static let wireAttemptRate = Rule(
        "wire-attempt-rate",
        "connection attempts per minute stay within what the claimed backoff and the disruptions explain",
        timeBounded: true)

    /// The rules judged from the wire, in the order reports list them.
    public static let wireRules: [Rule] = [
        .wireOneSocket, .wireResubscribedBeforeOpen, .wireOpenAfterHandshake, .wireBackoffWithinClaim, .wireBackoffFit,
        .wireHerdSpread, .wireDeadPeerGivenUp, .wireQuietAfterStop, .wireRetryLimitKept, .wireReconnects,
        .wireAttemptRate,
    ]
}
