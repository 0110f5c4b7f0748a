import LiveConnection
import LiveConnectionRules
import SimulationKernel

/// What the server has seen of one client so far, and the rules judged as each wire event
/// arrives. Pure bookkeeping: no I/O, no time of its own.
///
/// Failures are counted the way the wire shows them: a failed attempt is one, and an
/// open socket that ended (the server ended it and the client was told, or the client
/// gave it up) is one; an open resets the count (or, if the client claims so, only an
/// answered ping), and so may an intent (a start or an activate may reset it or not: both
/// counts are kept and a delay must fit one of them).
struct ClientLedger {
    struct Socket {
        var openedAt: VirtualClock.Instant
        /// When its attempt left the client (its connect timeout runs from here).
        var attemptedAt: VirtualClock.Instant
        /// A frame it owed was held back by a stalled writer: the client may never have
        /// reported it open, so the next socket need not resume.
        var heldBack = false
        var subscribed: [String] = []
        var resumed = false
        /// This socket must send a resume cursor (the client claims resume and was open before).
        var needsResume: Bool
        var closedByClient = false
        /// Since when its writer has been stalled (the first frame held back since the last
        /// stall ended): a close the client makes meanwhile waits behind the stalled write,
        /// where the server cannot see it.
        var stalledSince: VirtualClock.Instant?
        /// When it had sent everything it owed (nil: not yet).
        var completedAt: VirtualClock.Instant?
        var endedByServer: VirtualClock.Instant?
        var told = false
        var failureCounted = false
        var missingReported = false
        /// Everything owed was sent: the client may call this an open (the counts start again).
        var complete = false
    }

    let index: Int
    let claims: WireClaims
    let topics: [String]
    /// A delay may miss its claimed bounds by this much (a real clock; zero in simulation).
    let tolerance: Duration
    var sockets: [Int: Socket] = [:]
    /// Sockets open in the server's view, oldest first.
    var held: [Int] = []
    /// Sockets the client has not closed (the server may have ended them), oldest first.
    var unclosed: [Int] = []
    var hasBeenOpen = false
    var lastAttemptAt: VirtualClock.Instant?

    // Backoff, as the wire shows it. A client may start counting again at the handshake or
    // once it resubscribed: both are kept, and a delay must fit one of them.
    var failuresSinceHandshake = FailureCount()
    var failuresSinceOpen = FailureCount()
    /// As if the last open had not happened (a client that never got to report it open:
    /// its last write was still held back when the socket ended).
    var failuresSinceEarlierOpen = FailureCount()
    var failuresSinceIntent = FailureCount()
    /// Since the last pong that reached the client (``BackoffReset/whenAHeartbeatIsAnswered``).
    var failuresSinceAnsweredPing = FailureCount()
    /// The last delay since then: such a client also keeps its previous delay until the answer.
    var previousDelaySinceAnsweredPing: Duration?
    /// When the client learnt of its last failure (nil: an attempt is in flight or nothing failed).
    var lastFailureAt: VirtualClock.Instant?
    /// The socket whose ending was the last failure (nil: a failed attempt).
    var lastFailedSocket: Int?
    /// Later news of that same ending: the close frame received after a failed ping or
    /// write told it first, or the client's own close of it. The spec times a retry from
    /// the ending the client acts on (a manager ignores a failed ping: its receive loop
    /// reports the end), and the wire cannot show which news that was, so a delay may run
    /// from any of them.
    var laterNewsAt: [VirtualClock.Instant] = []
    /// The last failure was a server ending of an open socket at this instant (a herd candidate).
    var lastFailureEndedAt: VirtualClock.Instant?
    var intentSinceFailure = true
    /// The network path changed since the last failure: a client that watches the path may
    /// retry at once when it returns, or wait for it, whatever its backoff says.
    var pathNewsSinceFailure = false
    /// Automatic attempts in the current run that failed without a path (or at the instant
    /// it changed): a client that watches the path does not count them against its limit.
    var attemptsWithoutPath = 0
    var refreshPending = false
    var previousDelay: Duration?
    /// A retry already fell outside the claimed backoff (`wire-backoff-within-claim` is
    /// reported once): later delays are read at the ends of their count's range only.
    var backoffClaimBroken = false
    var automaticAttempts = 0

    // Intents and stops.
    var wanted = false
    var active = true
    var stoppedSince: VirtualClock.Instant?
    /// A terminal code or status the client learnt at an instant that leaves it open whether
    /// it stopped (at the instant of an intent, or of the socket's connect timeout: the judge
    /// cannot tell which the client handled first), or on a socket it may have given up
    /// before, unseen behind a stalled write (``mayHaveGivenUp(_:before:writer:)``). Neither
    /// "quiet" nor "keeps trying" is judged until the client shows which: an attempt, or the
    /// next start.
    var maybeStoppedSince: VirtualClock.Instant?
    /// Started, active, and surely not stopped: it must keep trying.
    var mustKeepTrying: Bool { wanted && active && stoppedSince == nil && maybeStoppedSince == nil }
    var stopReason = ""
    /// A socket the client closes (or an attempt it abandons) at the instant of an intent
    /// was closed for the intent, not because something failed. A terminal close or status
    /// the client learns at that instant may have reached it before the intent, or after
    /// the intent gave the socket up (the judge hears the intent before the client does):
    /// see ``maybeStoppedSince``.
    var lastIntentAt: VirtualClock.Instant?
    /// The last intent that may give a socket up (a background, a disconnect).
    var lastGiveUpIntentAt: VirtualClock.Instant?

    /// Since when the client has neither held a socket nor started an attempt.
    var quietSince: VirtualClock.Instant = .start
    /// Attempts that neither opened nor failed yet, by id, with when they left the client:
    /// a verdict about a client that waits on one must say so, not that it gave up.
    var attemptsInFlight: [Int: VirtualClock.Instant] = [:]

    // The network path, as the network reports it (``pathChanged(available:at:)``).
    var pathLost = false
    var lastPathNewsAt: VirtualClock.Instant?

    // Rate, statistics.
    var recentAttempts = RecentInstants()
    var fitSamples: [Double] = []
    /// First retries after a server ending of an open socket: (ending instant, attempt instant, offset).
    var herdRetries: [(endedAt: VirtualClock.Instant, attemptAt: VirtualClock.Instant, offset: Duration)] = []

    init(index: Int, claims: WireClaims, topics: [String], tolerance: Duration = .zero) {
        self.index = index
        self.tolerance = tolerance
        self.claims = claims
        self.topics = topics
    }

    typealias Report = (Rule, String) -> Void

    mutating func intent(_ intent: AppIntent, at now: VirtualClock.Instant) {
        // The judge reads the path from the network (``pathChanged(available:at:)``), not
        // from what an app tells its client.
        if case .setPathViable = intent { return }
        lastIntentAt = now
        intentSinceFailure = true
        automaticAttempts = 0
        attemptsWithoutPath = 0
        switch intent {
        case .connect:
            wanted = true
            maybeStoppedSince = nil
            quietSince = now
            stoppedSince = nil
            failuresSinceIntent = FailureCount()
        case .setForeground(true):
            active = true
            quietSince = now
            failuresSinceIntent = FailureCount()
        case .setForeground(false):
            active = false
            lastGiveUpIntentAt = now
        case .disconnect:
            wanted = false
            if stoppedSince == nil {
                stoppedSince = now
                stopReason = "the app disconnected at \(now)"
            }
            lastGiveUpIntentAt = now
        case .setPathViable: break
        }
    }

    mutating func attempt(at now: VirtualClock.Instant, rateAllowance: Int, report: Report) {
        quietSince = now
        lastAttemptAt = now
        maybeStoppedSince = nil
        if let stopped = stoppedSince, now > stopped {
            report(.wireQuietAfterStop, "connection attempt at \(now) after \(stopReason)")
        }
        recentAttempts.add(now, window: .seconds(60))
        if recentAttempts.count > rateAllowance {
            report(
                .wireAttemptRate,
                "\(recentAttempts.count) attempts in the last minute; the claimed backoff and the disruptions explain \(rateAllowance)"
            )
        }
        defer {
            lastFailureAt = nil
            lastFailedSocket = nil
            laterNewsAt = []
            lastFailureEndedAt = nil
            refreshPending = false
        }
        guard let failedAt = lastFailureAt, !intentSinceFailure else {
            automaticAttempts = 0
            attemptsWithoutPath = 0
            return
        }
        automaticAttempts += 1
        if let limit = claims.retryLimit, automaticAttempts - attemptsWithoutPath > limit {
            report(
                .wireRetryLimitKept,
                "automatic attempt \(automaticAttempts) in a row, though the client claims to give up after \(limit)")
        }
        guard !pathNewsSinceFailure else {
            // The wait spans path news the client may have acted on: no delay to judge, and
            // none it may base its next one on.
            previousDelay = nil
            previousDelaySinceAnsweredPing = nil
            return
        }
        let delays = ([failedAt] + laterNewsAt).map { now - $0 }
        let delay = judgeDelay(delays, report: report)
        let firstFailure =
            failuresSinceOpen.all == 1
            && (claims.backoffResets == .whenOpen || failuresSinceAnsweredPing.all == 1)
        if let endedAt = lastFailureEndedAt, firstFailure, !refreshPending, laterNewsAt.isEmpty {
            herdRetries.append((endedAt, now, delay))
        }
        previousDelay = delay
        previousDelaySinceAnsweredPing = delay
    }

    /// The delay must be possible after n failures, for an n between the failures since the
    /// last intent and those since the last open (one fewer after a refresh code), measured
    /// from one of the instants the client heard of the failure (`delays`, first news first).
    /// Returns the delay taken: the first that fits, or the first.
    private mutating func judgeDelay(_ delays: [Duration], report: Report) -> Duration {
        var counts: [Int] = [failuresSinceIntent, failuresSinceOpen, failuresSinceHandshake, failuresSinceEarlierOpen]
            .flatMap(\.candidates)
        var previousDelays: [Duration?] = [previousDelay, nil]
        if claims.backoffResets == .whenAHeartbeatIsAnswered {
            counts += failuresSinceAnsweredPing.candidates
            previousDelays.append(previousDelaySinceAnsweredPing)
        }
        let high: Int = counts.max()!
        let fewest: Int = counts.min()!
        // A count without the failures learnt off the path may be 0; a wait still follows one failure at least.
        let low: Int = refreshPending ? max(0, fewest - 1) : max(1, fewest)
        guard high >= 1 else { return delays[0] }
        func fits(_ delay: Duration, after n: Int) -> Bool {
            previousDelays.contains {
                let bounds = claims.backoff.distribution(n, $0).bounds
                return (bounds.lowerBound - tolerance...bounds.upperBound + tolerance).contains(delay)
            }
        }
        // The counts at the ends first (most delays fit one of them); those between only
        // while the rule still holds: a client that broke it once (its count runs into the
        // thousands) would otherwise be asked every count at every attempt.
        func fits(_ delay: Duration) -> Bool {
            fits(delay, after: high) || fits(delay, after: low)
                || (!backoffClaimBroken && stride(from: low + 1, to: high, by: 1).contains { fits(delay, after: $0) })
        }
        let delay = delays.first(where: fits) ?? delays[0]
        if !fits(delay) {
            backoffClaimBroken = true
            let claimed = claims.backoff.distribution(high, previousDelay)
            report(
                .wireBackoffWithinClaim,
                "retried after \(delays.map(\.traceFormatted).joined(separator: " or ")) with \(low == high ? "\(high)" : "\(low)…\(high)") failures seen on the wire; "
                    + "the claim (\(claims.backoff)) allows \(claimed.bounds.lowerBound.traceFormatted)…\(claimed.bounds.upperBound.traceFormatted) after \(high)"
            )
        }
        // Only unambiguous, continuous cases feed the fit: its probability transform must be exact.
        let previousKnown = claims.backoffResets == .whenOpen || previousDelaySinceAnsweredPing == previousDelay
        if low == high, delays.count == 1, !refreshPending, previousKnown,
            case .uniform(let range) = claims.backoff.distribution(high, previousDelay),
            range.upperBound > range.lowerBound
        {
            fitSamples.append(claims.backoff.distribution(high, previousDelay).cdf(delay))
        }
        return delay
    }

    mutating func attemptFailed(reason: String, at now: VirtualClock.Instant) {
        if pathLost || now == lastPathNewsAt { attemptsWithoutPath += 1 }
        if reason != TransportError.cancelled.reason || now != lastIntentAt { fail(at: now, endedAt: nil) }
        let words = reason.split(separator: " ")
        if words.count == 2, words[0] == "handshake", let status = Int(words[1]) {
            if claims.terminalHandshakeStatuses.contains(status), stoppedSince == nil, lastIntentAt == now {
                maybeStoppedSince = now
            } else if claims.terminalHandshakeStatuses.contains(status), stoppedSince == nil {
                stoppedSince = now
                stopReason = "a terminal handshake status \(status) at \(now)"
            }
            if claims.refreshHandshakeStatuses.contains(status) { refreshPending = true }
        }
    }

    mutating func opened(socket: Int, at now: VirtualClock.Instant) {
        sockets[socket] = Socket(
            openedAt: now, attemptedAt: lastAttemptAt ?? now, needsResume: claims.resumes && hasBeenOpen)
        held.append(socket)
        unclosed.append(socket)
        failuresSinceHandshake = FailureCount()
        failuresSinceIntent = FailureCount()
        automaticAttempts = 0
        attemptsWithoutPath = 0
        lastFailureAt = nil
        lastFailedSocket = nil
        laterNewsAt = []
        completeIfOwedNothing(socket, at: now)
    }

    /// The socket sent all it owed: an open as any client would report it.
    private mutating func completeIfOwedNothing(_ socket: Int, at now: VirtualClock.Instant) {
        guard let state = sockets[socket], !state.complete, missing(on: socket).isEmpty else { return }
        sockets[socket]!.complete = true
        sockets[socket]!.completedAt = now
        if !state.heldBack { hasBeenOpen = true }
        failuresSinceEarlierOpen = failuresSinceOpen
        failuresSinceOpen = FailureCount()
        previousDelay = nil
    }

    /// - Parameter drainingStall: the socket's writer was stalled and just let go of the
    ///   frames queued behind the stall (written before the stop, leaving now).
    /// - Parameter heldBack: the socket's writer is stalled: this frame has not left yet.
    /// - Parameter lastStallEndedAt: when a stall of the socket's writer last ended.
    mutating func sent(
        socket: Int, text: String, at now: VirtualClock.Instant, drainingStall: Bool, heldBack: Bool,
        lastStallEndedAt: VirtualClock.Instant?, report: Report
    ) {
        if heldBack, let state = sockets[socket] {
            sockets[socket]!.heldBack = true
            // A new stall, unless this frame queues behind one still on.
            let stallStillOn = state.stalledSince.map { (lastStallEndedAt ?? .start) < $0 } ?? false
            if !stallStillOn { sockets[socket]!.stalledSince = now }
        }
        if let stopped = stoppedSince, now > stopped, !drainingStall {
            report(.wireQuietAfterStop, "socket \(socket) sent \(text) at \(now) after \(stopReason)")
        }
        if let topic = Self.subscribedTopic(text) {
            sockets[socket]?.subscribed.append(topic)
        } else if text.hasPrefix(#"{"type":"resume""#) {
            sockets[socket]?.resumed = true
        }
        completeIfOwedNothing(socket, at: now)
    }

    mutating func pinged(socket: Int, at now: VirtualClock.Instant, report: Report) {
        if let stopped = stoppedSince, now > stopped {
            report(.wireQuietAfterStop, "socket \(socket) pinged at \(now) after \(stopReason)")
        }
    }

    /// The socket answered a heartbeat: a client that claims so counts its failures from here.
    mutating func ponged(socket: Int) {
        guard sockets[socket] != nil else { return }
        failuresSinceAnsweredPing = FailureCount()
        previousDelaySinceAnsweredPing = nil
    }

    mutating func closedByClient(socket: Int, at now: VirtualClock.Instant) {
        guard sockets[socket] != nil else { return }
        sockets[socket]!.closedByClient = true
        held.removeAll { $0 == socket }
        quietSince = max(quietSince, now)
        unclosed.removeAll { $0 == socket }
        if !sockets[socket]!.failureCounted {
            sockets[socket]!.failureCounted = true
            if now != lastIntentAt { fail(at: now, endedAt: nil, socket: socket) }
        } else {
            // Told earlier, acting now (a pong deadline after an ignored ping error).
            laterNews(of: socket, at: now)
        }
    }

    mutating func endedByServer(socket: Int, at now: VirtualClock.Instant) {
        guard sockets[socket] != nil else { return }
        sockets[socket]!.endedByServer = now
        held.removeAll { $0 == socket }
        quietSince = max(quietSince, now)
    }

    /// The client learnt that the socket ended; `code` if it received the close frame
    /// (a terminal code counts only once received: a frozen socket never delivers it).
    /// - Parameter writer: the socket's writer as the network knows it now: stalled, and
    ///   when its last stall ended.
    mutating func told(
        socket: Int, code: CloseCode?, at now: VirtualClock.Instant,
        writer: (stalled: Bool, lastStallEndedAt: VirtualClock.Instant?)
    ) {
        if let code {
            // Learnt at the instant the socket's connect timeout expired, the code may have
            // reached a client that had already given the socket up: a stale callback.
            let atItsDeadline = sockets[socket].map { now == $0.attemptedAt + claims.connectTimeout } ?? false
            let mayBeStale = atItsDeadline || mayHaveGivenUp(socket, before: now, writer: writer)
            if claims.terminalCloseCodes.contains(code), stoppedSince == nil, lastIntentAt == now || mayBeStale {
                maybeStoppedSince = now
            } else if claims.terminalCloseCodes.contains(code), stoppedSince == nil {
                stoppedSince = now
                stopReason = "receiving the terminal close code \(code) at \(now)"
            }
            if claims.refreshCloseCodes.contains(code) { refreshPending = true }
        }
        guard sockets[socket] != nil else { return }
        guard !sockets[socket]!.told else {
            // The close frame after a failed ping or write told the client first.
            laterNews(of: socket, at: now)
            return
        }
        sockets[socket]!.told = true
        guard !sockets[socket]!.failureCounted else { return }
        sockets[socket]!.failureCounted = true
        fail(at: now, endedAt: sockets[socket]!.endedByServer, socket: socket)
    }

    /// Whether the client may have given the socket up before a code on it reached it (then
    /// the code is a stale callback, and stops nothing): it closed the socket, or its writer
    /// has been stalled from before a moment the client may have given it up until now, so
    /// the close is still queued behind the stalled write. Such a moment is an intent that
    /// may give a socket up (a background, a disconnect), or the claimed connect timeout of
    /// a socket that had not sent all it owed when the stall began (a client may count its
    /// resubscription into the connect timeout, as the manager does). Once the stall ends,
    /// a queued close reaches the server; a socket still unclosed after that was not given up.
    private func mayHaveGivenUp(
        _ socket: Int, before now: VirtualClock.Instant,
        writer: (stalled: Bool, lastStallEndedAt: VirtualClock.Instant?)
    ) -> Bool {
        guard let state = sockets[socket] else { return false }
        if state.closedByClient { return true }
        guard let since = state.stalledSince else { return false }
        // Stalled from `since` until now: still stalled, with no stall ended since, or the
        // stall ended at this instant (because the code arrived: the close queued behind it
        // leaves only now).
        let stalledThrough: Bool
        if let ended = writer.lastStallEndedAt {
            stalledThrough = ended >= now || (writer.stalled && ended < since)
        } else {
            stalledThrough = writer.stalled
        }
        guard stalledThrough else { return false }
        let atIntent = lastGiveUpIntentAt.map { $0 >= since && $0 < now } ?? false
        let deadline = state.attemptedAt + claims.connectTimeout
        let connectingWhenStalled = state.completedAt.map { $0 >= since } ?? true
        let atDeadline = connectingWhenStalled && deadline >= since && deadline < now
        return atIntent || atDeadline
    }

    /// News of the ending that is still the last failure (no attempt since): a retry may be timed from it.
    private mutating func laterNews(of socket: Int, at now: VirtualClock.Instant) {
        guard socket == lastFailedSocket, let first = lastFailureAt, now > first, !laterNewsAt.contains(now) else {
            return
        }
        laterNewsAt.append(now)
    }

    private mutating func fail(at now: VirtualClock.Instant, endedAt: VirtualClock.Instant?, socket: Int? = nil) {
        // A client that watches the path may not count a failure learnt without one.
        let offPath = pathLost || now == lastPathNewsAt
        failuresSinceHandshake.add(offPath: offPath)
        failuresSinceOpen.add(offPath: offPath)
        failuresSinceEarlierOpen.add(offPath: offPath)
        failuresSinceIntent.add(offPath: offPath)
        failuresSinceAnsweredPing.add(offPath: offPath)
        lastFailureAt = now
        lastFailedSocket = socket
        laterNewsAt = []
        lastFailureEndedAt = endedAt
        intentSinceFailure = false
        // Path news at this same instant may have reached the client after the failure.
        if now != lastPathNewsAt { pathNewsSinceFailure = false }
    }

    /// What a socket still owes before the client may say open: missing topics, and the resume cursor.
    func missing(on socket: Int) -> [String] {
        guard let state = sockets[socket] else { return [] }
        var missing = topics.filter { !state.subscribed.contains($0) }
        if state.needsResume && !state.resumed { missing.append("resume") }
        return missing
    }

    /// The topic of a subscribe frame in the server's protocol (`{"type":"subscribe","topic":"…"}`).
    static func subscribedTopic(_ text: String) -> String? {
        let prefix = #"{"type":"subscribe","topic":""#
        guard text.hasPrefix(prefix), text.hasSuffix(#""}"#) else { return nil }
        return String(text.dropFirst(prefix.count).dropLast(2))
    }
}
