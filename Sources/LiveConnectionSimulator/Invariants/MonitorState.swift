import Foundation
import LiveConnection
import LiveConnectionRules
import SimulationKernel

/// The invariant monitor's model of the run: what the app asked for, what the manager
/// decided (from its effects), and the bookkeeping each invariant needs.
///
/// Built only from the observer's (input, effects) pairs, the driver's actions and the
/// world's truth (``WorldTruth``), never from the manager's internals, so a broken variant cannot hide
/// its mistake by also corrupting what the monitor reads.
struct MonitorState {
    /// Which formulas apply (the policy's name and parameters, P, T, the connect timeout).
    let configuration: ConnectionConfiguration
    /// What is right: the judge's own statement of the seed documents (never the code's).
    let specification: Specification
    let world: any WorldTruth
    /// What the world showed at the start of the current step (``lookAtWorld()``, which every
    /// step of ``InvariantMonitor`` starts with): every rule of the step reads it, so the world
    /// is asked once per step. One value refilled in place, so a step allocates nothing for it.
    var snapshot: WorldSnapshot
    /// The identity server behind the credentials provider (nil: the judge does not know it).
    let issuer: CredentialsIssuer?
    /// How late a real clock's timers and the monitor's own checks may run: added to every
    /// time bound (zero in virtual time, where timers fire at their instant).
    let tolerance: Duration
    /// P + T: the dead-peer detection bound (see docs/invariants.md for why no latency term).
    let detectionBound: Duration
    /// Healthy, wanted and foreground for this long means open.
    let livenessBound: Duration
    /// A closed generation's socket may stay held this long after its close effect, its
    /// handshake and its last stalled write, whichever came last (the close is queued
    /// behind the frames written before it).
    static let closeGrace = Duration.seconds(2)

    var violations: [Violation] = []
    var violationCounts = [Int](repeating: 0, count: Rule.invariants.count)
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
    /// The app's calls told and not yet received by the manager (``AppCall``).
    var pendingCalls: [AppCall] = []
    var topics: [String] = []
    var wanted = false
    var foreground = true
    var stopped = false

    // Backoff: failures since the connection last proved itself (answered a heartbeat),
    // and since the last intent that may reset them.
    var failuresSinceProof = 0
    var failuresSinceIntent = 0
    var previousDelay: Duration?
    /// `backoff-distribution`: the delays whose failure count (and, for decorrelated jitter,
    /// previous delay) the monitor knows for certain, as transforms (``BackoffDelayPool``).
    var delayPool = BackoffDelayPool()
    /// No refresh since the count last started again, so `previousDelay` is the one the
    /// policy grows from. (After an intent the counts since it and since the last proof differ
    /// until the next proof, so no delay is pooled then anyway.)
    var previousDelayCertain = true
    /// The judge's own stream for spreading a transform over an atom: never the manager's, and
    /// a different one per run (``spreadSeed``), or the first atom of every run would land on
    /// the same point of its jump and the pooled transforms would not be independent (100,000
    /// seeds showed it: bumps in decorrelated jitter's top bins).
    var spreadRandom: Xoshiro256StarStar
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

    // App pings (PingLedger.swift).
    var pings = PingLedger()

    // The network path the app reports (PathWatch.swift).
    var path = PathWatch()

    // Commands.
    var commandsChecked = 0
    var commandTexts: Set<String> = []

    // The public surface: where sockets go, what is armed, what the app's streams carry.
    /// The URL of the app's last `connect(to:)`, and the one each generation was opened for.
    var lastConnectURL: URL?
    var intendedURL: [Generation: URL] = [:]
    /// Links of the network already checked for their endpoint.
    var linksChecked = 0
    /// The retry timer is armed (from the effects; its firing disarms it).
    var retryArmed = false
    /// A credentials refresh was asked for and not answered yet.
    var refreshPending = false
    /// Every phase, message and gap the manager decided, in order: what each `events()`
    /// subscriber must see from the moment it subscribed.
    var decided: [DecidedEvent] = []
    var subscribers: [Subscriber] = []

    // The app's options (MonitorState+Options.swift).
    /// When each generation was dialled: how many tokens the issuer had handed out, and the
    /// newest a refresh had answered with.
    var credentialsAtDial: [Generation: (issued: Int, refreshed: Int?)] = [:]
    /// The token the last refresh answered with (with one refresh at a time, the newest issued).
    var refreshedToken: Int?
    /// The tokens earlier handshakes carried.
    var tokensSeen: Set<Int> = []

    // Close frames (MonitorState+Closing.swift).
    /// Sockets the app's disconnect must close with its code and reason, and since when.
    var owedCloses: [(generation: Generation, frame: CloseFrame, since: VirtualClock.Instant)] = []
    /// The close frame the app asked for in the disconnect it is making now.
    var appAskedClose: CloseFrame?
    /// The last live generation whose handshake the manager heard complete (`opened`).
    var heardOpen: Generation?

    init(
        configuration: ConnectionConfiguration, specification: Specification, world: any WorldTruth,
        tolerance: Duration = .zero, issuer: CredentialsIssuer? = nil, spreadSeed: UInt64 = 0
    ) {
        self.issuer = issuer
        self.spreadRandom = Xoshiro256StarStar(seed: spreadSeed ^ 0x706F_6F6C_6564_5F55)
        self.configuration = configuration
        self.specification = specification
        self.world = world
        self.tolerance = tolerance
        self.snapshot = WorldSnapshot(
            questions: WorldQuestions(
                linksFrom: 0, commandsFrom: 0, watching: nil, timeChecks: false,
                heartbeatInterval: configuration.heartbeatInterval))
        let p = configuration.heartbeatInterval, t = configuration.heartbeatTimeout
        detectionBound = specification.deadPeerBound(heartbeatInterval: p, heartbeatTimeout: t)
        // A wait drawn before the network healed (≤ the policy's maximum), an attempt
        // that hangs until its connect timeout, a dead socket found within P + T, and the
        // round trips of a handshake and a resubscription at the largest latency (T/8).
        livenessBound =
            configuration.connectTimeout + detectionBound + specification.maximumDelay(configuration.backoff) + t
            + .seconds(1)
    }

    /// How a time bound's message names the real clock's allowance (nothing in virtual time).
    var toleranceNote: String { tolerance == .zero ? "" : " + tolerance \(tolerance.traceFormatted)" }

    mutating func violate(_ invariant: Rule, at now: VirtualClock.Instant, _ detail: String) {
        let index = Rule.invariants.firstIndex(of: invariant)!
        violationCounts[index] += 1
        if violationCounts[index] == 1 {
            violations.append(Violation(rule: invariant, judge: .simulator, at: now.sinceStart, detail: detail))
            sawNewViolation = true
        }
    }
}
