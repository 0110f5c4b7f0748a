import Foundation
import LiveConnection
import LiveConnectionSimulator

/// `livesim connect --check`: the simulator's invariant monitor judging a real manager on
/// real sockets, on the real clock, through the same observation points a simulated run
/// uses (the manager's observer, `events()`, the transport seam).
///
/// ```swift
/// let check = ConnectCheck(configuration: configuration, transport: WebSocketTransport(), start: .now, tolerance: .seconds(1))
/// let manager = ConnectionManager(configuration: configuration, transport: check.transport,
///                                 observer: { check.monitor.observe($0, $1) })
/// ```
struct ConnectCheck: Sendable {
    let monitor: InvariantMonitor
    /// The real transport, watched: the monitor's world.
    let transport: ObservedTransport
    /// One element for each invariant broken for the first time.
    let found: AsyncStream<Void>
    let tolerance: Duration
    /// How often the timed invariants are evaluated when nothing happens.
    static let interval = Duration.milliseconds(100)
    /// The default allowance for a real clock's late timers and the 100 ms evaluation period.
    static let defaultTolerance = Duration.seconds(1)

    init(
        configuration: ConnectionConfiguration, transport inner: any Transport, start: ContinuousClock.Instant,
        tolerance: Duration
    ) {
        let now = Self.timeline(from: start)
        let (found, feed) = AsyncStream.makeStream(of: Void.self)
        transport = ObservedTransport(inner, now: now)
        monitor = InvariantMonitor(
            configuration: configuration, world: transport, now: now, tolerance: tolerance,
            onViolation: { feed.yield() })
        self.found = found
        self.tolerance = tolerance
    }

    /// Real time since `start`, as the simulator's instants (whole milliseconds), so a report
    /// reads as a simulated one does: "3512ms dead-peer-detected: …".
    static func timeline(from start: ContinuousClock.Instant) -> @Sendable () -> VirtualClock.Instant {
        {
            let (seconds, attoseconds) = start.duration(to: .now).components
            return .start + .milliseconds(seconds * 1000 + attoseconds / 1_000_000_000_000_000)
        }
    }

    /// What is judged and what is not, printed before the first event.
    var preamble: [String] {
        let partly = ObservedTransport.judgedInPart.map(\.invariant)
        let judged = Rule.invariants.filter { invariant in
            !ObservedTransport.notJudged.contains { $0.invariant == invariant } && !partly.contains(invariant)
        }
        return [
            "check: judging \(judged.map(\.name).joined(separator: ", ")) on the real clock (time bounds + \(tolerance.traceFormatted))"
        ]
            + ObservedTransport.judgedInPart.map { "check: in part \($0.invariant.name): \($0.why)" }
            + ObservedTransport.notJudged.map { "check: not judged \($0.invariant.name): \($0.why)" }
    }

    /// The last line: how many evaluations, and whether any rule was broken.
    var summary: String {
        let broken = monitor.violations.count
        return broken == 0
            ? "check: \(monitor.checks) invariant evaluations, no violation"
            : "check: \(monitor.checks) invariant evaluations, \(broken) invariant\(broken == 1 ? "" : "s") violated"
    }
}
