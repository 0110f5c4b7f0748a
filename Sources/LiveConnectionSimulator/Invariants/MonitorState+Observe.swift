import LiveConnection
import LiveConnectionRules
import SimulationKernel

// The checks made on every (input, effects) pair the manager's observer reports.
extension MonitorState {
    mutating func observe(_ input: Input, _ effects: [Effect], now: VirtualClock.Instant) {
        let before = Before(live: live, refreshPending: refreshPending, phase: reportedPhase)
        checkNewLinks(now: now)
        checkStaleInput(input, effects, now: now)
        for problem in pings.observe(input, effects, now: now) { violate(.pingsAnsweredOnce, at: now, problem) }
        checkPath(input, effects, now: now)
        checkQuietAfterStop(input, effects, now: now)
        let stopsAfter = noteIntent(input)

        // A failure: the input sent the manager into waiting (a refresh that succeeded
        // and waits before reconnecting is the same failure, not a new one). With credentials
        // fetched before every connect, an expiry needs no refresh: it is a failure retried
        // with the wait for one fewer, at once when that wait is 0 (no waiting phase then).
        let expiryRetried =
            configuration.credentialsTiming == .beforeEveryConnect && expiresCredentials(input, liveBefore: before.live)
        let refreshed = input == .credentialsRefreshed(succeeded: true) || expiryRetried
        let countsFailure =
            expiryRetried
            || (!refreshed && effects.contains(where: { if case .report(.waiting) = $0 { true } else { false } }))
        if countsFailure {
            failuresSinceProof += 1
            failuresSinceIntent += 1
        }
        noteProof(input)

        for effect in effects {
            switch effect {
            case .openConnection(let g, _):
                live = g
                subscribesOrderedByIntent = []
                noteAttempt(after: input, now: now)
            case .send(let g, .control(.subscribe(let topic))) where g == live:
                if case .subscribe = input { subscribesOrderedByIntent.append(topic) }
            case .ping(let g) where g == openGeneration && pingOutstanding == nil:
                pingOutstanding = g
            case .closeConnection(let g, _, _):
                if pingOutstanding == g { pingOutstanding = nil }
                if live == g { live = nil }
                if openGeneration == g { openGeneration = nil }
                closedAt[g] = now
            case .startTimer(.retry, let delay):
                checkBackoff(delay, refreshed: refreshed, now: now)
                noteRetryWait(refreshed: refreshed, now: now)
            case .refreshCredentials:
                previousDelay = .zero
                previousDelayCertain = false
            case .report(let phase):
                reportedPhase = phase
                if phase.isOpen { checkOpen(now: now) }
            case .deliverMessage:
                checkDelivery(input, effects, now: now)
            default:
                break
            }
        }
        if stopsAfter {
            stopped = true
            wanted = false
        }
        observeSurface(input, effects, before: before, now: now)
        checkOptions(input, effects, countedFailure: countsFailure, now: now)
        checkDisconnect(input, effects, before: before, now: now)
        checkCloseReachesApp(input, effects, before: before, now: now)
        checks += 1
        if reportedPhase.isOpen, live == nil {
            violate(.reportedStateIsTrue, at: now, "reports open after \(input) closed its connection (\(effects))")
        }
    }

    /// Without a path nothing is dialled or spent; its return dials at once when the app
    /// wants a connection and nothing else is under way (a stopped manager, including one that
    /// gave up, owes nothing).
    private mutating func checkPath(_ input: Input, _ effects: [Effect], now: VirtualClock.Instant) {
        checks += 1
        let stoppedPhase = if case .stopped = reportedPhase { true } else { false }
        let mayDial = wanted && foreground && !stopped && !stoppedPhase && live == nil && !refreshPending
        let problems = path.observe(input, effects, mayDial: mayDial)
        for problem in problems.quiet { violate(.quietWithoutPath, at: now, problem) }
        for problem in problems.reconnect { violate(.reconnectsWhenPathReturns, at: now, problem) }
    }

    /// A callback of a generation that is not live must change nothing; a late `opened`
    /// may only close its socket.
    private mutating func checkStaleInput(_ input: Input, _ effects: [Effect], now: VirtualClock.Instant) {
        guard let g = input.generation, g != live else { return }
        checks += 1
        let harmless: Bool
        if case .opened = input {
            harmless = effects.allSatisfy { if case .closeConnection(g, _, _) = $0 { true } else { false } }
        } else {
            harmless = effects.isEmpty
        }
        if !harmless {
            violate(
                .staleInputsChangeNothing, at: now,
                "\(input) arrived while \(live.map(String.init(describing:)) ?? "no generation") is live and produced \(effects)"
            )
        }
    }

    private mutating func checkQuietAfterStop(_ input: Input, _ effects: [Effect], now: VirtualClock.Instant) {
        guard stopped else { return }
        if case .connect = input { return }
        checks += 1
        let activity = effects.first { effect in
            switch effect {
            case .openConnection, .send, .ping, .refreshCredentials, .startTimer(.retry, _), .startTimer(.heartbeat, _):
                true
            default:
                false
            }
        }
        if let activity {
            violate(.quietAfterStop, at: now, "\(activity) after the connection was stopped (input \(input))")
        }
    }

    /// Records what the app wants, from the app's own call when it was reported (the
    /// oldest one of this kind not yet matched), else from the input; returns true if this
    /// input stops the connection for good.
    private mutating func noteIntent(_ input: Input) -> Bool {
        if let call = takePendingCall(matching: input) ?? AppCall(input) {
            apply(call)
            return false
        }
        switch input {
        case .closedByPeer(let g, let code, _):
            return g == live && specification.isTerminal(close: code)
        case .connectFailed(let g, .handshakeRejected(let status)):
            return g == live && specification.isTerminal(handshakeStatus: status)
        default:
            return false
        }
    }

    /// The backoff-reset rule (docs/architecture.md): the open connection's first answer
    /// to a ping — its pong, or any frame — proves it, and the failure count starts again.
    /// An open alone proves nothing: a server that accepts then closes is still failing.
    private mutating func noteProof(_ input: Input) {
        let answer: Generation?
        switch input {
        case .pong(let g), .received(let g, _, _): answer = g
        default: answer = nil
        }
        guard let answer, answer == pingOutstanding, answer == openGeneration else { return }
        pingOutstanding = nil
        failuresSinceProof = 0
        failuresSinceIntent = 0
        previousDelay = nil
        previousDelayCertain = true
    }

    /// The delay must be one the named policy's published formula allows after j
    /// failures, for some j between the failures since the last intent that may have reset
    /// the count and those since the last proof (lower bound as well as upper).
    private mutating func checkBackoff(_ delay: Duration, refreshed: Bool, now: VirtualClock.Instant) {
        checks += 1
        let low = min(failuresSinceIntent, failuresSinceProof)
        let high = max(failuresSinceIntent, failuresSinceProof)
        let policy = configuration.backoff
        let previous: [Specification.PreviousDelay] = [previousDelay.map { .known($0) } ?? .none, .none]
        let fits = (low...high).contains { count in
            // A refresh reconnects with the delay for one failure fewer (it was not a failed attempt).
            let failures = refreshed ? max(0, count - 1) : count
            return previous.contains {
                specification.allowedDelay(policy, afterFailures: failures, previous: $0).contains(delay)
            }
        }
        if !fits {
            let failures = refreshed ? max(0, low - 1) : low
            let allowed = specification.allowedDelay(policy, afterFailures: failures, previous: previous[0])
            violate(
                .backoffWithinPolicy, at: now,
                "retry after \(delay.traceFormatted) with \(low)…\(high) failures since the last proof; \(policy.traceWords) allows \(allowed.lowerBound.traceFormatted)…\(allowed.upperBound.traceFormatted) after \(failures)"
            )
        } else if low == high, !refreshed {
            poolDelay(delay, failures: low)
        }
        previousDelay = delay
    }

    /// `backoff-distribution`: a delay whose failure count is certain joins the pool as its
    /// transform under the published distribution (decorrelated jitter also needs its
    /// previous delay certain). Judged over many runs (``BackoffDelayPool``).
    private mutating func poolDelay(_ delay: Duration, failures: Int) {
        let policy = configuration.backoff
        if case .decorrelatedJitter = policy.kind, !previousDelayCertain { return }
        let published = specification.publishedDelay(policy, afterFailures: failures, previous: previousDelay)
        let spread = spreadRandom.unitDouble()
        guard let u = Specification.transform(of: delay, under: published, spread: spread) else { return }
        delayPool.add(
            transform: u, family: policy.family, failures: failures,
            atom: Specification.atom(of: delay, under: published))
    }

    /// Opening: the handshake happened and every topic was resubscribed on this socket.
    /// (The failure count does not start again here: see `noteProof`.)
    private mutating func checkOpen(now: VirtualClock.Instant) {
        checks += 2
        openReportedAt = now
        openGeneration = live
        guard let g = live, let link = world.link(for: g), link.handshakeCompleted else {
            violate(
                .reportedStateIsTrue, at: now,
                "reports open but \(live.map { "\($0)" } ?? "no generation") never completed a handshake")
            return
        }
        let missing = topics.filter { !link.sentSubscribes.contains($0) && !subscribesOrderedByIntent.contains($0) }
        if !missing.isEmpty {
            violate(
                .resubscribeBeforeOpen, at: now,
                "\(g) reports open without subscribing to \(missing) (sent \(link.sentSubscribes))")
        }
    }

    /// With resume, a message is new and in order; a hole is allowed only where the
    /// server's log no longer holds the missing messages, and must be reported.
    private mutating func checkDelivery(_ input: Input, _ effects: [Effect], now: VirtualClock.Instant) {
        guard configuration.resume, case .received(_, _, let sequence?) = input else { return }
        checks += 1
        defer { lastDelivered = max(lastDelivered ?? 0, sequence) }
        guard let last = lastDelivered else { return }
        if sequence <= last {
            violate(.exactlyOnceInOrder, at: now, "delivered seq \(sequence) after seq \(last)")
        } else if sequence > last + 1 {
            if let oldest = replayableFrom, sequence - 1 >= oldest {
                violate(
                    .exactlyOnceInOrder, at: now,
                    "skipped seq \(last + 1)..<\(sequence), which the server still holds (log from \(oldest))")
            } else if !effects.contains(.reportGap(expected: last + 1, received: sequence)) {
                violate(.exactlyOnceInOrder, at: now, "lost seq \(last + 1)..<\(sequence) without reporting a gap")
            }
        }
    }
}
