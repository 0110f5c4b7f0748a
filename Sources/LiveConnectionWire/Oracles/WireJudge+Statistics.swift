import LiveConnection
import LiveConnectionRules
import SimulationKernel
import Statistics

// The rules judged on a whole run: the fit of the retry delays to the claim, and the
// shape of a herd's retries.
extension WireJudge {
    /// Below this p-value a fit is rejected: 10,000 seeds of a correct client then raise a
    /// false alarm with probability about 1 % (the same level as `backoff-distribution`).
    public static let alpha = Specification.falseAlarmAlpha
    /// A client needs this many unambiguous continuous delays before its fit is judged.
    public static let fitMinimum = 20
    /// Clients dropped at the same instant make a herd from this many on.
    public static let herdMinimum = 5

    /// Runs the statistical rules on the whole run; call after it (and after ``endRun()``).
    public func finish() {
        let now = clock.now
        state.withLock { state in
            ingest(&state)
            for client in state.ledgers.indices { checkFit(&state, client: client, now: now) }
            checkHerd(&state, now: now)
        }
    }

    /// The probability transforms of the delays are U(0, 1) under the claim.
    private func checkFit(_ state: inout State, client: Int, now: VirtualClock.Instant) {
        let samples = state.ledgers[client].fitSamples
        guard samples.count >= Self.fitMinimum else { return }
        state.checks += 1
        let test = KolmogorovSmirnovTest(sample: samples) { min(1, max(0, $0)) }
        if test.pValue < Self.alpha {
            report(
                &state, .wireBackoffFit, client, now,
                "\(samples.count) retry delays do not fit \(claims.backoff): \(test)")
        }
    }

    /// Clients dropped together must spread their first retries over the first window as
    /// full jitter does (AWS, "Exponential Backoff And Jitter", 2015), with no more exact
    /// ties than chance allows.
    private func checkHerd(_ state: inout State, now: VirtualClock.Instant) {
        var groups: [VirtualClock.Instant: [(client: Int, attemptAt: VirtualClock.Instant, offset: Duration)]] = [:]
        for ledger in state.ledgers {
            for retry in ledger.herdRetries {
                groups[retry.endedAt, default: []].append((ledger.index, retry.attemptAt, retry.offset))
            }
        }
        let herds = groups.keys.sorted().compactMap {
            instant -> [(client: Int, attemptAt: VirtualClock.Instant, offset: Duration)]? in
            let group = groups[instant]!
            return Set(group.map(\.client)).count >= Self.herdMinimum ? group : nil
        }
        guard !herds.isEmpty else { return }
        state.checks += 1
        let window = claims.backoff.distribution(1, nil).bounds.upperBound.nanoseconds
        let retries = herds.flatMap { $0 }
        let spread = retries.map { window > 0 ? min(1, Double($0.offset.nanoseconds) / Double(window)) : 1 }
        let ks = KolmogorovSmirnovTest(sample: spread) { min(1, max(0, $0)) }
        let ties = TiesTest(
            values: retries.map { $0.attemptAt.sinceStart.nanoseconds }, collisionProbability: 1 / Double(window + 1))
        guard ks.pValue < Self.alpha || ties.pValue < Self.alpha else { return }
        let first = herds[0].sorted { $0.attemptAt < $1.attemptAt }
        let shown = first.prefix(5).map { "client \($0.client) +\($0.offset.traceFormatted)" }.joined(separator: ", ")
        report(
            &state, .wireHerdSpread, -1, now,
            "\(herds.count) herd(s), \(retries.count) first retries in a first window of \(Duration.nanoseconds(window).traceFormatted): "
                + "\(ks); ties: \(ties); first herd: \(shown)\(first.count > 5 ? ", …" : "")")
    }
}
