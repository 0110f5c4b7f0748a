import Foundation
import LiveConnection
import SimulationKernel

/// One thing the manager decided to tell the app (a `report`, `deliverMessage` or
/// `reportGap` effect), in the shape an `events()` subscriber receives it.
enum DecidedEvent: Hashable, CustomStringConvertible {
    case phase(Phase)
    case message(sequence: UInt64?)
    case gap(expected: UInt64, received: UInt64)

    init(_ event: ConnectionEvent) {
        switch event {
        case .phase(let phase): self = .phase(phase)
        case .message(_, let sequence): self = .message(sequence: sequence)
        case .gap(let expected, let received): self = .gap(expected: expected, received: received)
        }
    }

    var description: String {
        switch self {
        case .phase(let phase): "phase \(phase)"
        case .message(let sequence): "message" + (sequence.map { " seq=\($0)" } ?? "")
        case .gap(let expected, let received): "gap expected=\(expected) received=\(received)"
        }
    }
}

/// One `events()` subscriber: where in the decided events it joined, the phase it is owed
/// first (the one last reported), and how many events it has received.
struct Subscriber {
    var start: Int
    var firstPhase: Phase
    var received = 0
    /// The last phase its stream delivered.
    var lastPhase: Phase?
}

// The rules judged from the public surface: where each socket goes, what is armed in the
// background and for how long, what the credentials provider is asked, and what every
// `events()` subscriber receives.
extension MonitorState {
    /// What the step began with (the checks below run after the effects were noted).
    struct Before {
        var live: Generation?
        var refreshPending: Bool
        /// The phase the app was last shown.
        var phase: Phase
    }

    mutating func observeSurface(_ input: Input, _ effects: [Effect], before: Before, now: VirtualClock.Instant) {
        switch input {
        case .connect(let endpoint):
            checkConnectionMoves(to: endpoint.url, effects, before: before, now: now)
        case .timerFired(.retry): retryArmed = false
        case .credentialsRefreshed: refreshPending = false
        default: break
        }
        // Credentials fetched before every connect need no refresh on expiry (the configuration
        // picks which rule of the specification applies).
        let refreshOwed =
            configuration.credentialsTiming == .afterExpiry && expiresCredentials(input, liveBefore: before.live)
            && !before.refreshPending
        var retryDelay: Duration?
        var waitingDelay: Duration?
        for effect in effects {
            switch effect {
            case .openConnection(let g, let endpoint):
                checks += 1
                if endpoint.url != lastConnectURL {
                    violate(
                        .endpointOfLastConnect, at: now,
                        "\(g) dials \(endpoint.url) but the app's last connect(to:) named \(lastConnectURL.map(\.absoluteString) ?? "nothing")"
                    )
                }
                intendedURL[g] = lastConnectURL
            case .startTimer(.retry, let delay):
                retryArmed = true
                retryDelay = delay
            case .startTimer(let timer, let delay):
                checkTimerDuration(timer, delay, now: now)
            case .cancelTimer(.retry):
                retryArmed = false
            case .refreshCredentials:
                refreshPending = true
            case .report(let phase):
                decided.append(.phase(phase))
                if case .waiting(_, let delay, _) = phase { waitingDelay = delay }
                if case .connecting(let attempt) = phase { checkAttemptNumber(attempt, of: "connecting", now: now) }
                if case .open(let attempt) = phase { checkAttemptNumber(attempt, of: "open", now: now) }
            case .deliverMessage(_, let sequence):
                decided.append(.message(sequence: sequence))
            case .reportGap(let expected, let received):
                decided.append(.gap(expected: expected, received: received))
            default:
                break
            }
        }
        if let retryDelay, let waitingDelay, retryDelay != waitingDelay {
            violate(
                .backoffWithinPolicy, at: now,
                "the app is told \"waiting \(waitingDelay.traceFormatted)\" but the retry is armed for \(retryDelay.traceFormatted)"
            )
        }
        if refreshOwed { checkRefreshAsked(input, effects, now: now) }
        if !foreground { checkQuietInBackground(input, effects, now: now) }
    }

    /// Seed 000: a live close 4001 or a handshake 401 means "refresh the credentials".
    func expiresCredentials(_ input: Input, liveBefore: Generation?) -> Bool {
        switch input {
        case .closedByPeer(let g, let code, _): g == liveBefore && specification.refreshes(close: code)
        case .connectFailed(let g, .handshakeRejected(let status)):
            g == liveBefore && specification.refreshes(handshakeStatus: status)
        default: false
        }
    }

    /// The expiry asks the provider (one refresh at a time: a pending one answers it too),
    /// and neither retries with the stale credentials nor stops.
    private mutating func checkRefreshAsked(_ input: Input, _ effects: [Effect], now: VirtualClock.Instant) {
        checks += 1
        let instead = effects.first { effect in
            switch effect {
            case .openConnection, .startTimer(.retry, _): true
            // The app's attempt limit wins over the refresh: an expiry is a failure like any
            // other, and gives-up-at-the-limit judges whether this one reached the limit.
            case .report(.stopped(let reason, _)):
                configuration.maximumAttempts == nil || !reason.hasPrefix("gave up")
            default: false
            }
        }
        let gaveUp = effects.contains { if case .report(.stopped) = $0 { true } else { false } }
        if let instead {
            violate(
                .expiredCredentialsRefreshed, at: now, "\(input) led to \(instead) instead of a credentials refresh")
        } else if !gaveUp, !effects.contains(.refreshCredentials) {
            violate(.expiredCredentialsRefreshed, at: now, "\(input) did not ask for fresh credentials (\(effects))")
        }
    }

    /// In the background: no live generation, nothing opened, no retry armed.
    private mutating func checkQuietInBackground(_ input: Input, _ effects: [Effect], now: VirtualClock.Instant) {
        checks += 1
        if let g = live {
            violate(.quietInBackground, at: now, "\(g) is still live in the background after \(input)")
        } else if retryArmed {
            violate(.quietInBackground, at: now, "a retry is armed in the background after \(input)")
        } else if let open = effects.first(where: { if case .openConnection = $0 { true } else { false } }) {
            violate(.quietInBackground, at: now, "\(open) in the background")
        }
    }

    /// The connect timeout, the heartbeat and the pong deadline run for C, P and T exactly.
    private mutating func checkTimerDuration(_ timer: TimerID, _ delay: Duration, now: VirtualClock.Instant) {
        checks += 1
        let (name, configured): (String, Duration)
        switch timer {
        case .connectTimeout: (name, configured) = ("connect timeout", configuration.connectTimeout)
        case .heartbeat: (name, configured) = ("heartbeat interval P", configuration.heartbeatInterval)
        case .pongDeadline: (name, configured) = ("heartbeat timeout T", configuration.heartbeatTimeout)
        case .retry: return
        case .pingDeadline: return  // the app's own timeout: pings-answered-once judges it
        }
        if delay != configured {
            violate(
                .timersArmedAsConfigured, at: now,
                "\(timer) armed for \(delay.traceFormatted); the \(name) is \(configured.traceFormatted)")
        }
    }

    /// "connecting attempt=n": n − 1 failures since the count last started again; "open
    /// attempt=n" names the attempt that succeeded, counted the same way (the failures cannot
    /// change between its connecting report and its open report: no connection proves
    /// itself before it is open).
    private mutating func checkAttemptNumber(_ attempt: Int, of phase: String, now: VirtualClock.Instant) {
        checks += 1
        let low = min(failuresSinceIntent, failuresSinceProof)
        let high = max(failuresSinceIntent, failuresSinceProof)
        if !(low...high).contains(attempt - 1) {
            violate(
                .backoffWithinPolicy, at: now,
                "reports \(phase) attempt=\(attempt) after \(low)…\(high) failures since the last proof (attempt \(low + 1)…\(high + 1))"
            )
        }
    }

    /// The last `connect(to:)` wins in every phase: a connection held (in its handshake,
    /// subscribing, or open) for another endpoint is given up in the same step. Judged at the
    /// request, not at the next attempt: a manager that lets the handshake finish on the old
    /// destination makes no new attempt for the new one, so the attempt check never sees it.
    private mutating func checkConnectionMoves(
        to url: URL, _ effects: [Effect], before: Before, now: VirtualClock.Instant
    ) {
        guard let g = before.live, let held = intendedURL[g], held != url else { return }
        checks += 1
        // Still the manager's live generation after the step (neither closed nor replaced):
        // a socket abandoned without its close is single-live-transport's to report.
        guard live == g else { return }
        violate(
            .endpointOfLastConnect, at: now,
            "the app's connect(to:) named \(url) while \(g) to \(held) was held, and \(g) was kept")
    }

    /// Every new socket went where its generation was opened for.
    mutating func checkNewLinks(now: VirtualClock.Instant) {
        let links = uncheckedLinks
        linksChecked += links.count
        for link in links {
            checkCredentials(of: link, now: now)
            checks += 1
            guard let g = link.generation, let intended = intendedURL[g], link.endpoint.url != intended else {
                continue
            }
            violate(
                .endpointOfLastConnect, at: now,
                "socket \(link.id) of \(g) went to \(link.endpoint.url), not \(intended)")
        }
    }

    // MARK: events() subscribers

    /// A subscriber joins now (on the manager's actor, just before `events()`): it is owed
    /// the phase last reported, then every event decided from here on.
    mutating func subscriberJoins() -> Int {
        subscribers.append(Subscriber(start: decided.count, firstPhase: reportedPhase))
        return subscribers.count - 1
    }

    /// Subscriber `id` received `event`: it must be the next one it is owed.
    mutating func subscriber(_ id: Int, received event: ConnectionEvent, now: VirtualClock.Instant) {
        checks += 1
        let subscriber = subscribers[id]
        subscribers[id].received += 1
        if case .phase(let phase) = event { subscribers[id].lastPhase = phase }
        let owed: DecidedEvent?
        if subscriber.received == 0 {
            owed = .phase(subscriber.firstPhase)
        } else {
            let index = subscriber.start + subscriber.received - 1
            owed = index < decided.count ? decided[index] : nil
        }
        let got = DecidedEvent(event)
        guard got != owed else { return }
        violate(
            .eventsFollowTheMachine, at: now,
            "subscriber \(id) (joined after \(subscriber.start) decided events) got \(got) as its event \(subscriber.received + 1); "
                + "owed \(owed.map(\.description) ?? "nothing more")")
    }

    /// Subscriber `id`'s stream finished. Streams finish only when `run()` ends, and then
    /// nothing is wanted any more: an app that is not told `stopped` before its stream goes
    /// quiet still shows the last phase it saw (open, waiting) for a connection that is gone.
    mutating func subscriberEnded(_ id: Int, now: VirtualClock.Instant) {
        checks += 1
        let subscriber = subscribers[id]
        if case .stopped = subscriber.lastPhase { return }
        violate(
            .streamsEndStopped, at: now,
            "subscriber \(id)'s events() stream finished after \(subscriber.received) events, the last phase "
                + "\(subscriber.lastPhase.map { "\($0)" } ?? "none"), never stopped")
    }
}
