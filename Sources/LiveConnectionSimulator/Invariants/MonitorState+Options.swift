import LiveConnection
import SimulationKernel

// The app's opt-in options, judged from what the app configured and what it and the server
// see: the attempt limit from the reported phases, the credentials timing from the headers
// each handshake carried (the network keeps them) against what the issuer handed out.
extension MonitorState {
    /// `countedFailure`: the step's failure is already in the monitor's count.
    mutating func checkOptions(_ input: Input, _ effects: [Effect], countedFailure: Bool, now: VirtualClock.Instant) {
        if let issuer, input == .credentialsRefreshed(succeeded: true), issuer.issued > 0 {
            refreshedToken = issuer.issued
        }
        for effect in effects {
            switch effect {
            case .openConnection(let g, _):
                if let issuer { credentialsAtDial[g] = (issuer.issued, refreshedToken) }
            case .report(let phase):
                checkAttemptLimit(phase, after: input, countedFailure: countedFailure, now: now)
            default:
                break
            }
        }
    }

    /// The limit counts the failures since a connection last proved itself, as the backoff
    /// does: the monitor's own count (``failuresSinceProof``; an intent may restart it, so any
    /// count between the two is the machine's to choose). A wait or an attempt past the limit
    /// retries what the app asked to give up; a give-up anywhere else stops what it wanted.
    private mutating func checkAttemptLimit(
        _ phase: Phase, after input: Input, countedFailure: Bool, now: VirtualClock.Instant
    ) {
        let limit = configuration.maximumAttempts
        let low = min(failuresSinceIntent, failuresSinceProof)
        let high = max(failuresSinceIntent, failuresSinceProof)
        // The give-up's own failure, unless the step counted it already (an expiry).
        let giveUp = countedFailure ? low...high : low + 1...high + 1
        switch phase {
        case .connecting(let attempt), .open(let attempt):
            checks += 1
            if let limit, attempt > limit {
                violate(.givesUpAtTheLimit, at: now, "reports \(phase) past the limit of \(limit) attempts")
            }
        case .waiting:
            // Counted already: this wait is failure number `low…high`.
            checks += 1
            if let limit, low >= limit {
                violate(
                    .givesUpAtTheLimit, at: now,
                    "\(input) sent it waiting (\(phase)) after \(low)…\(high) failures, at the limit of \(limit) attempts"
                )
            }
        case .stopped(let reason, _) where reason.hasPrefix("gave up"):
            checks += 1
            guard let limit else {
                violate(.givesUpAtTheLimit, at: now, "\(input) gave up (\(phase)) but the app set no limit")
                return
            }
            if reason != "gave up after \(limit) attempts" || !giveUp.contains(limit) {
                violate(
                    .givesUpAtTheLimit, at: now,
                    "\(input) gave up (\(phase)) at failure \(giveUp.lowerBound)…\(giveUp.upperBound); the limit is \(limit) attempts"
                )
            }
            // What the app asked for: stopped, quiet until it connects again.
            stopped = true
            wanted = false
        default:
            break
        }
    }

    /// A new socket's handshake carried the token its generation should have: the one the
    /// last refresh answered with before it was dialled (none before the first expiry), or,
    /// with credentials before every connect, one issued after it was dialled that no earlier
    /// handshake carried.
    mutating func checkCredentials(of link: LinkTruth, now: VirtualClock.Instant) {
        guard issuer != nil, let g = link.generation, let (issued, refreshed) = credentialsAtDial[g] else { return }
        checks += 1
        let token = CredentialsIssuer.token(in: link.endpoint.headers)
        defer { if let token { tokensSeen.insert(token) } }
        switch configuration.credentialsTiming {
        case .afterExpiry:
            if token != refreshed {
                violate(
                    .freshCredentialsPerHandshake, at: now,
                    "socket \(link.id) of \(g) carried \(Self.spell(token)); the last refresh before it was dialled gave \(Self.spell(refreshed))"
                )
            }
        case .beforeEveryConnect:
            guard let token, token > issued, !tokensSeen.contains(token) else {
                violate(
                    .freshCredentialsPerHandshake, at: now,
                    "socket \(link.id) of \(g) carried \(Self.spell(token)), not one fetched for it (\(issued) issued when it was dialled\(token.map { tokensSeen.contains($0) ? ", and an earlier handshake carried it" : "" } ?? ""))"
                )
                return
            }
        }
    }

    private static func spell(_ token: Int?) -> String { token.map { "token sim-\($0)" } ?? "no token" }
}
