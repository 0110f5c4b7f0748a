/// One named rule about a connection manager, from the one catalogue that the simulator's
/// invariants, the model checker's properties and the trace files all take their names from.
///
/// ```swift
/// for rule in Rule.catalogue where rule.timeBounded { print(rule.name) }
/// violation.rule == .singleLiveTransport   // the same word in the simulator, the checker and traces
/// ```
///
/// Each rule is judged where it can be checked: the simulator watches runs in virtual time,
/// so it alone judges the time-bounded rules (dead peer within P + T, open within a bound,
/// attempts per minute); the model checker sees every reachable machine state but no real
/// time, so it alone judges rules about the machine's internals (timers armed, one refresh at
/// a time). Rules both can check carry one name, so a counterexample of either says the same
/// thing, and the checker's trace files are named `checker-<variant>-<rule>.trace`.
///
/// The catalogue names no judge: each judge's module declares its ``Judge`` and the rules it
/// judges (the simulator's `Rule.invariants`, the wire module's `Rule.wireRules`, the
/// checker's properties), so a new judge is added without touching this list.
public struct Rule: Hashable, Sendable, CustomStringConvertible {
    /// Who checks a rule: a name each judge's module declares for itself
    /// (`extension Rule.Judge { public static let checker = Rule.Judge(rawValue: "checker") }`),
    /// so the catalogue does not know the tools that read it.
    public struct Judge: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The judge's name, as reports print it.
        public let rawValue: String

        public init(rawValue: String) { self.rawValue = rawValue }

        public var description: String { rawValue }
    }

    /// A stable, kebab-case name (command lines, trace files, `expect:` lines, reports).
    public let name: String
    /// One line: what must hold.
    public let summary: String
    /// The rule speaks of elapsed time, which only the simulator has.
    public let timeBounded: Bool

    /// A rule of a judge's own (the wire module declares its `wire-` rules this way).
    public init(_ name: String, _ summary: String, timeBounded: Bool = false) {
        self.name = name
        self.summary = summary
        self.timeBounded = timeBounded
    }

    public var description: String { name }

    /// The rule with this name among `rules` (the catalogue unless told).
    public static func named(_ name: String, in rules: [Rule] = catalogue) -> Rule? {
        rules.first { $0.name == name }
    }
}

extension Rule {
    // Judged by both.
    public static let singleLiveTransport = Rule(
        "single-live-transport",
        "at most one transport connection is held open, and a closed generation's socket is released")
    public static let staleInputsChangeNothing = Rule(
        "stale-inputs-change-nothing",
        "a callback of a generation that is not live produces no effect (a late open is only closed)")
    public static let resubscribeBeforeOpen = Rule(
        "resubscribe-before-open", "every connection sends a subscribe for every wanted topic before it reports open")
    public static let backoffWithinPolicy = Rule(
        "backoff-within-policy",
        "every retry delay lies within the published formula's range, lower and upper bound, for the failures since the connection last proved itself"
    )
    public static let quietAfterStop = Rule(
        "quiet-after-stop",
        "after disconnect() or a terminal close, nothing is opened, sent, pinged or retried until connect")
    public static let commandsAtMostOnce = Rule(
        "commands-at-most-once", "the server receives each outgoing command at most once")
    public static let endpointOfLastConnect = Rule(
        "endpoint-of-last-connect",
        "every connection attempt goes to the endpoint the app named in its last connect(to:), and a connection held for another endpoint (in its handshake, subscribing or open) is given up at the request"
    )
    public static let quietInBackground = Rule(
        "quiet-in-background", "in the background no connection is held or opened and no retry is armed")
    public static let quietWithoutPath = Rule(
        "quiet-without-path",
        "while the app reports the network path unviable, no connection is dialled and no backoff is spent (no retry armed), and the attempt count it resumes with is at most one past the last one reported before"
    )
    public static let reconnectsWhenPathReturns = Rule(
        "reconnects-when-path-returns",
        "when the app reports the path viable again while it wants a connection in the foreground and none is open, opening or being refreshed, a connection is dialled in that same instant"
    )
    public static let timersArmedAsConfigured = Rule(
        "timers-armed-as-configured",
        "the connect timeout, the heartbeat and the pong deadline are armed for exactly their configured durations")
    public static let expiredCredentialsRefreshed = Rule(
        "expired-credentials-refreshed",
        "close 4001 or HTTP 401 asks for fresh credentials (one refresh at a time) instead of retrying or stopping (unless it is the failure that reaches the app's attempt limit)"
    )

    public static let exactlyOnceInOrder = Rule(
        "exactly-once-in-order",
        "with resume, broadcasts reach the app once each, in order; gaps only for messages the server lost")

    // Judged by the simulator: they need time, the server's view, or the app's.
    public static let deadPeerDetected = Rule(
        "dead-peer-detected", "an open connection that can no longer hear the server is torn down within P + T",
        timeBounded: true)
    public static let reportedStateIsTrue = Rule(
        "reported-state-is-true",
        "open is never reported before the handshake, with no connection, or on a socket dead for over P + T",
        timeBounded: true)
    public static let eventuallyOpen = Rule(
        "eventually-open",
        "healthy network, wanted, foreground: open within the connect timeout + P + T + the backoff cap + round trips",
        timeBounded: true)
    public static let eventsFollowTheMachine = Rule(
        "events-follow-the-machine",
        "every events() subscriber, early or late, gets the current phase first, then each phase, message and gap once, in order"
    )
    public static let noHotLoop = Rule(
        "no-hot-loop",
        "connection attempts per minute stay within what the published backoff policy allows, whatever the server does",
        timeBounded: true)

    /// Its deadline is the ping's own timer: the simulator judges the instant, the checker
    /// that the timer is armed for the timeout asked and answers when it fires (no elapsed
    /// time needed, as with `timers-armed-as-configured`).
    public static let pingsAnsweredOnce = Rule(
        "pings-answered-once",
        "every app ping gets exactly one outcome (alive, no answer, failed), by its deadline at the latest")

    public static let givesUpAtTheLimit = Rule(
        "gives-up-at-the-limit",
        "with an attempt limit of N, the N-th failure since a connection last proved itself ends in stopped \"gave up after N attempts\" (never a wait, never attempt N + 1), and nothing gives up sooner or without a limit"
    )
    public static let freshCredentialsPerHandshake = Rule(
        "fresh-credentials-per-handshake",
        "every handshake carries the newest credentials the provider gave; with credentials before every connect, ones fetched for that attempt that no earlier handshake carried"
    )

    public static let disconnectClosesAsAsked = Rule(
        "disconnect-closes-as-asked",
        "disconnect(code:reason:) closes the open socket with the app's code and reason as the server receives them (disconnect(): 1000 \"disconnected\") and shows the app stopped"
    )

    public static let streamsEndStopped = Rule(
        "streams-end-stopped",
        "when run() ends, every events() stream delivers the stopped phase (nothing is wanted now) before it finishes")
    public static let closeReachesTheApp = Rule(
        "close-reaches-the-app",
        "when the live connection ends, the waiting or stopped phase the app is shown carries the server's close frame, code and reason, as the client received it (none after a reset)"
    )

    // Judged by the checker: they read the machine's state and effects step by step.
    public static let openOnlyAfterHandshake = Rule(
        "open-only-after-handshake", "open is reported only once the live connection's handshake completed")
    public static let resumeBeforeOpen = Rule(
        "resume-before-open",
        "with resume on, a connection that opens after an earlier open or a delivered sequenced message asks to resume before reporting open"
    )
    public static let onePendingReconnect = Rule(
        "one-pending-reconnect", "a reconnect is never scheduled while one is already pending")
    public static let stoppedLeftOnlyByConnect = Rule(
        "stopped-left-only-by-connect", "stopped is left only through connect(to:)")
    public static let commandsCompletedOnce = Rule(
        "commands-completed-once", "each command's outcome is reported exactly once")
    public static let commandsNeverHang = Rule(
        "commands-never-hang",
        "a command is answered at once or rides an open socket; it never outlives its connection")
    public static let timersDieWithConnection = Rule(
        "timers-die-with-connection", "a connection's timers are cancelled when it ends")
    public static let oneRefreshAtATime = Rule(
        "one-refresh-at-a-time", "the credentials provider is never asked again before it answered")
    public static let phaseMatchesSocket = Rule(
        "phase-matches-socket", "connecting has an opening socket, open an open one, every other phase none")
    public static let progressIsArmed = Rule(
        "progress-is-armed", "every phase that waits for something has the timer or request that ends the wait")
    public static let backoffDistribution = Rule(
        "backoff-distribution",
        "the retry delays of all the runs, pooled per policy and failure count, follow the published distribution (χ² at family-wise α = 10⁻⁶)"
    )
    public static let noDeadlock = Rule(
        "no-deadlock", "a wanted, foregrounded connection on a healthy network can always still reach open")

    /// Every rule of the manager: the shared ones, the simulator's, the checker's (the wire
    /// module adds its own `wire-` rules, judged from the server's side of any client).
    public static let catalogue: [Rule] =
        [
            .singleLiveTransport, .staleInputsChangeNothing, .resubscribeBeforeOpen, .backoffWithinPolicy,
            .quietAfterStop, .commandsAtMostOnce, .endpointOfLastConnect, .quietInBackground, .timersArmedAsConfigured,
            .expiredCredentialsRefreshed, .exactlyOnceInOrder,
            .deadPeerDetected, .reportedStateIsTrue, .eventuallyOpen, .eventsFollowTheMachine,
            .noHotLoop, .pingsAnsweredOnce, .quietWithoutPath, .reconnectsWhenPathReturns, .givesUpAtTheLimit,
            .freshCredentialsPerHandshake, .disconnectClosesAsAsked, .closeReachesTheApp, .streamsEndStopped,
            .openOnlyAfterHandshake, .resumeBeforeOpen, .onePendingReconnect, .stoppedLeftOnlyByConnect,
            .commandsCompletedOnce, .commandsNeverHang, .timersDieWithConnection,
            .oneRefreshAtATime, .phaseMatchesSocket, .progressIsArmed, .noDeadlock, .backoffDistribution,
        ]
}
