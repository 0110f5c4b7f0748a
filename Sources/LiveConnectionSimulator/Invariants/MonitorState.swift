import LiveConnection

/// The invariant monitor's model of the run: what the app asked for, what the manager
/// decided (from its effects), and the bookkeeping each invariant needs.
///
/// Built only from the observer's (input, effects) pairs, the driver's actions and the
/// network's truth, never from the manager's internals, so a broken variant cannot hide
/// its mistake by also corrupting what the monitor reads.
struct MonitorState {
    let configuration: ConnectionConfiguration
    let network: SimulatedNetwork
    /// P + T: the dead-peer detection bound (see docs/invariants.md for why no latency term).
    let detectionBound: Duration
    /// Healthy, wanted and foreground for this long means open.
    let livenessBound: Duration
    /// A closed generation's socket may stay held this long after its close effect, its
    /// handshake and its last stalled write, whichever came last (the close is queued
    /// behind the frames written before it).
    static let closeGrace = Duration.seconds(2)

    var violations: [Violation] = []
    var violationCounts = [Int](repeating: 0, count: Invariant.all.count)
    var checks = 0
    var sawNewViolation = false

    // What the manager decided.
    var live: Generation?
    var closedAt: [Generation: VirtualClock.Instant] = [:]
    /// Topics the app subscribed while the live generation was already connected: their
    /// frames follow the flush, so they count as sent once ordered.
    var subscribesOrderedByIntent: [String] = []
    var openGeneration: Generation?
    var openReportedAt: VirtualClock.Instant = .start
    var reportedPhase: Phase = .idle

    // What the app asked for.
    var topics: [String] = []
    var wanted = false
    var foreground = true
    var stopped = false

    // Backoff: failures since the connection last proved itself (answered a heartbeat),
    // and since the last intent that may reset them.
    var failuresSinceProof = 0
    var failuresSinceIntent = 0
    var previousDelay: Duration?
    /// The open generation pinged and not yet answered (a pong or any frame answers).
    var pingOutstanding: Generation?

    // Resume.
    var lastDelivered: UInt64?

    // Attempts in the last minute, and the waits before those the server's failures caused
    // (see MonitorState+AttemptRate.swift).
    var attempts: [VirtualClock.Instant] = []
    var retryWaits: [RetryWait] = []
    /// The wait of the retry timer armed last, until its attempt.
    var pendingRetry: RetryWait?

    // Liveness.
    var healthySince: VirtualClock.Instant?
    /// The run's last instant was judged (``InvariantMonitor/finish()``): time stopped counting.
    var runEnded = false

    // Commands.
    var commandsChecked = 0
    var commandTexts: Set<String> = []

    init(configuration: ConnectionConfiguration, network: SimulatedNetwork) {
        self.configuration = configuration
        self.network = network
        let p = configuration.heartbeatInterval, t = configuration.heartbeatTimeout
        detectionBound = p + t
        // A wait drawn before the network healed (≤ the policy's maximum), an attempt
        // that hangs until its connect timeout, a dead socket found within P + T, and the
        // round trips of a handshake and a resubscription at the largest latency (T/8).
        livenessBound = configuration.connectTimeout + p + t + configuration.backoff.maximumDelay + t + .seconds(1)
    }

    mutating func violate(_ invariant: Invariant, at now: VirtualClock.Instant, _ detail: String) {
        let index = Invariant.all.firstIndex(of: invariant)!
        violationCounts[index] += 1
        if violationCounts[index] == 1 {
            violations.append(Violation(invariant: invariant, at: now, detail: detail))
            sawNewViolation = true
        }
    }
}
