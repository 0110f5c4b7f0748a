import Foundation
import LiveConnection
import LiveConnectionRules
import SimulationKernel

/// A retry the server's failures caused: when its wait began, and the wait the published
/// policy prescribes for the failure count at that moment.
struct RetryWait {
    var startedAt: VirtualClock.Instant
    var envelope: Specification.Envelope
}

// `no-hot-loop`: connection attempts per minute are bounded by what the policy allows,
// whatever the server does.
//
// Every attempt is either an intent's (connect(to:), the foreground: the app asked) or a
// retry after a wait the policy prescribes for the failures since the connection last
// proved itself (the monitor counts them from the wire, not from the manager's attempt
// numbers). The waits of the retries made within a minute lie inside that minute and do
// not overlap, so their sum is at most 60 s. The published formulas give each wait's range
// [a_i, b_i] and mean m_i, so by the Azuma–Hoeffding inequality the sum falls below
// Σm_i − t with probability at most exp(−2t² / Σ(b_i − a_i)²); with t for 10⁻¹² a
// correct manager is never flagged (10⁵ seeds of an hour make about 10⁸ checks), while a
// manager that retries faster than the policy allows — a counter reset on every open
// against a server that accepts then closes — soon needs more waiting than a minute holds.
extension MonitorState {
    /// The window attempts are counted in.
    static let attemptWindow = Duration.seconds(60)
    /// ln(10¹²) / 2: the Azuma–Hoeffding margin's factor for a 10⁻¹² false-alarm chance per check.
    static let hotLoopMarginFactor = log(1e12) / 2

    /// A retry timer was armed (or a refresh reconnects at once): the failure count now picks
    /// the published wait. A refresh reconnects with the wait for one failure fewer.
    mutating func noteRetryWait(refreshed: Bool, now: VirtualClock.Instant) {
        let failures = min(failuresSinceIntent, failuresSinceProof)
        let envelope = specification.envelope(
            configuration.backoff, afterFailures: refreshed ? max(0, failures - 1) : failures)
        pendingRetry = RetryWait(startedAt: now, envelope: envelope)
    }

    /// An attempt: counted, and if the server's failures caused it, checked against the policy.
    mutating func noteAttempt(after input: Input, now: VirtualClock.Instant) {
        checks += 1
        attempts.append(now)
        let windowStart = now - Self.attemptWindow
        attempts.removeAll { $0 < windowStart }
        switch input {
        case .timerFired(.retry):
            if let pendingRetry { retryWaits.append(pendingRetry) }
        case .credentialsRefreshed(succeeded: true):
            // Reconnecting at once after a refresh: a wait of zero, which must be the
            // policy's wait for one failure fewer.
            noteRetryWait(refreshed: true, now: now)
            if let pendingRetry { retryWaits.append(pendingRetry) }
        default:
            break  // the app asked: not the server's doing
        }
        pendingRetry = nil
        retryWaits.removeAll { $0.startedAt < windowStart }
        let mean = retryWaits.reduce(0) { $0 + $1.envelope.meanSeconds }
        let spread = retryWaits.reduce(0.0) { total, wait in
            let width = (wait.envelope.range.upperBound - wait.envelope.range.lowerBound).seconds
            return total + width * width
        }
        let leastPlausible = mean - (spread * Self.hotLoopMarginFactor).squareRoot()
        if leastPlausible > Self.attemptWindow.seconds {
            violate(
                .noHotLoop, at: now,
                "\(attempts.count) connection attempts in the last minute, \(retryWaits.count) of them retries whose "
                    + "waits the policy draws with a mean of \(Self.rounded(mean)) s in total (at least "
                    + "\(Self.rounded(leastPlausible)) s but for a 10⁻¹² chance): a minute cannot hold them")
        }
    }

    private static func rounded(_ seconds: Double) -> String { String(format: "%.1f", seconds) }
}
