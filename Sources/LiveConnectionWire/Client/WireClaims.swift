public import LiveConnection
public import LiveConnectionRules

/// What a client promises about itself, for the wire judge to hold it to.
///
/// ```swift
/// var claims = WireClaims(backoff: ClaimedBackoff(.fullJitter()), deadPeerBound: .seconds(35))
/// claims.retryLimit = 5            // "gives up after 5 attempts"
/// claims.resumes = true            // sends a resume cursor on every connection after the first
/// ```
///
/// A client is judged against its own claims (a backoff it does not follow, a limit it
/// does not keep, a deadline it misses) and against the rules every reconnecting client
/// must keep whatever it claims (see `docs/guide.md`, "Testing your own reconnecting client").
public struct WireClaims: Sendable {
    /// The delay before an automatic retry after n consecutive failures.
    public var backoff: ClaimedBackoff
    /// The longest a socket whose peer went silent may be held (P + T of a heartbeat with a
    /// pong deadline). A client without one still gets judged: give what a user would accept.
    public var deadPeerBound: Duration
    /// The longest a hung handshake is waited for.
    public var connectTimeout: Duration
    /// When the failure count the backoff is drawn with starts again.
    public var backoffResets: BackoffReset
    /// Gives up after this many consecutive automatic attempts (nil: never).
    public var retryLimit: Int?
    /// Sends the resume cursor on every connection after the first open.
    public var resumes: Bool
    /// Close codes after which the client does not reconnect until started again.
    public var terminalCloseCodes: Set<CloseCode>
    /// Handshake statuses after which the client does not reconnect until started again.
    public var terminalHandshakeStatuses: Set<Int>
    /// Close codes and statuses after which the client refreshes credentials and
    /// reconnects with the delay for one failure fewer.
    public var refreshCloseCodes: Set<CloseCode>
    public var refreshHandshakeStatuses: Set<Int>

    public init(
        backoff: ClaimedBackoff, deadPeerBound: Duration, connectTimeout: Duration = .seconds(10),
        backoffResets: BackoffReset = .whenOpen, retryLimit: Int? = nil, resumes: Bool = false,
        terminalCloseCodes: Set<CloseCode> = [],
        terminalHandshakeStatuses: Set<Int> = [], refreshCloseCodes: Set<CloseCode> = [],
        refreshHandshakeStatuses: Set<Int> = []
    ) {
        self.backoff = backoff
        self.deadPeerBound = deadPeerBound
        self.connectTimeout = connectTimeout
        self.backoffResets = backoffResets
        self.retryLimit = retryLimit
        self.resumes = resumes
        self.terminalCloseCodes = terminalCloseCodes
        self.terminalHandshakeStatuses = terminalHandshakeStatuses
        self.refreshCloseCodes = refreshCloseCodes
        self.refreshHandshakeStatuses = refreshHandshakeStatuses
    }

    /// What ``ConnectionManager`` must keep with this configuration: the close-code classes
    /// of `specification` (the seed documents' by default), the published distribution of the
    /// named backoff policy, P + T of its heartbeat, resume when it is on, and failures
    /// counted until a connection answers a heartbeat.
    ///
    /// The configuration only picks *which* formula and parameters apply; what is right comes
    /// from the specification. Claims read from the configuration's own close-code sets would
    /// agree with a wrong default (a terminal set that forgot 4003), and the judge would pass it.
    public init(_ configuration: ConnectionConfiguration, specification: Specification = .seedDocuments) {
        self.init(
            backoff: ClaimedBackoff(configuration.backoff),
            deadPeerBound: specification.deadPeerBound(
                heartbeatInterval: configuration.heartbeatInterval, heartbeatTimeout: configuration.heartbeatTimeout),
            connectTimeout: configuration.connectTimeout, backoffResets: .whenAHeartbeatIsAnswered,
            resumes: configuration.resume,
            terminalCloseCodes: Set(specification.terminalCloseCodes),
            terminalHandshakeStatuses: Set(specification.terminalHandshakeStatuses),
            refreshCloseCodes: Set(specification.refreshCloseCodes),
            refreshHandshakeStatuses: Set(specification.refreshHandshakeStatuses))
    }
}

/// When a client starts counting failures again, for the delay of its next retry.
///
/// ```swift
/// claims.backoffResets = .whenAHeartbeatIsAnswered   // ConnectionManager's rule
/// ```
public enum BackoffReset: Hashable, Sendable {
    /// At an open: the handshake, or once the subscriptions went out (a delay must fit one of them).
    case whenOpen
    /// Only once a socket answered a ping (its pong reached the client), so a server that
    /// accepts and then closes at once is backed off from. A delay must fit a count between
    /// the failures since the last open and those since the last answered ping: a client may
    /// also take another frame after a ping as the answer, which the count since the pong
    /// over-estimates, never under-estimates.
    case whenAHeartbeatIsAnswered
}

/// A backoff as a client claims it: the exact distribution of the delay after n failures.
///
/// ```swift
/// let full = ClaimedBackoff(.fullJitter(base: .seconds(1), cap: .seconds(30)))
/// // "base·2^(n−1) capped at 60 s, plus 0–25 % on top":
/// let additive = ClaimedBackoff(name: "exponential + 0–25 %", maximum: .seconds(75)) { n, _ in
///     let ceiling = min(Duration.seconds(60), .seconds(1) * (1 << min(n - 1, 20)))
///     return .uniform(ceiling ... ceiling * 1.25)
/// }
/// ```
public struct ClaimedBackoff: Sendable, CustomStringConvertible {
    public var name: String
    /// The largest delay the claim allows (bounds a liveness wait).
    public var maximum: Duration
    /// The distribution after `failures` (≥ 1) consecutive failures, given the previous delay.
    public var distribution: @Sendable (_ failures: Int, _ previous: Duration?) -> DelayDistribution

    public init(
        name: String, maximum: Duration,
        distribution: @escaping @Sendable (_ failures: Int, _ previous: Duration?) -> DelayDistribution
    ) {
        self.name = name
        self.maximum = maximum
        self.distribution = distribution
    }

    /// One of the library's policies, as its publication states it
    /// (`Specification.publishedDelay`), never as the policy's own code computes it: a claim
    /// read from the code under judgement agrees with any mistake in it.
    public init(_ policy: BackoffPolicy) {
        let specification = Specification.seedDocuments
        self.init(name: policy.description, maximum: specification.maximumDelay(policy)) { failures, previous in
            specification.publishedDelay(policy, afterFailures: failures, previous: previous)
        }
    }

    public var description: String { name }
}
