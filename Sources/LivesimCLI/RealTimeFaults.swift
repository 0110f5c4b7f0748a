import Foundation
import LiveConnection
import LiveConnectionSimulator
import LiveTestServer
import WebSocketTransport
import WireHistory

/// `--faults SEED`: the swarm's server and network faults for a seed, applied to a real
/// server at their times on the wall clock, so a run is repeatable as a sequence of fault
/// actions (the history records the seed and each action with its instant).
///
/// The schedule is the simulator's own (`ScenarioGenerator`, the seed's scenario), kept to
/// the kinds a real server can apply: refusals, handshake statuses and hangs, closes (and
/// terminal ones), resets, freezes, latency, restarts, idle timeouts, the hostile server
/// (accept-then-close; a slow handshake as a hang; a malformed frame is left out) and the
/// broadcasts. App intents and the faults only a simulator can give are left out. In front
/// of the user's server (`proxy --faults`, `torture --upstream`) the same schedule is applied
/// by the proxy, without the kinds only the live server can do (restart, idle timeout,
/// broadcasts): every action it keeps is the same action at the same instant.
struct RealTimeFaults: Sendable {
    /// What applies the schedule: the live test server, or the proxy in front of the user's.
    enum Target: Sendable {
        case server
        case proxy

        /// The kinds this target can apply.
        var kinds: Set<FaultKind> {
            switch self {
            case .server: RealTimeFaults.kinds
            // The user's server is not ours to restart, idle-time or broadcast on.
            case .proxy: RealTimeFaults.kinds.subtracting([.restart, .idleTimeout, .broadcast])
            }
        }
    }

    enum Profile: String, CaseIterable, Sendable {
        /// The seed's own swarm mix: the kinds it turned on, at its rates (a few seconds to ten minutes apart).
        case swarm
        /// Every kind on, each a mean interval apart (``RealTimeFaults/interval``).
        case storm
    }

    static let kinds: Set<FaultKind> = [
        .refuse, .handshakeFailure, .handshakeHang, .close, .terminalClose, .reset, .freeze, .latency, .restart,
        .idleTimeout, .hostileServer, .broadcast,
    ]
    static let defaultInterval = Duration.seconds(20)

    var seed: UInt64
    var profile: Profile
    /// The mean time between two faults of one kind, for `storm`.
    var interval: Duration
    /// How long the schedule runs.
    var duration: Duration
    var target: Target = .server

    /// What the history's header and the rerun line call it.
    var description: String {
        profile == .storm ? "storm interval=\(formatDuration(interval))" : "swarm"
    }

    var schedule: WireHistoryHeader.FaultSchedule { .init(seed: seed, profile: description) }

    /// The actions, in time order, as offsets from the start.
    var actions: [ScheduledAction] {
        let mix: FaultMix? =
            profile == .storm
            ? FaultMix(rates: Self.kinds.sorted().map { .init(kind: $0, meanInterval: interval) }) : nil
        let scenario = ScenarioGenerator(duration: duration, faults: mix).scenario(seed: seed)
        return scenario.schedule.filter { scheduled in
            guard let kind = FaultKind(of: scheduled.action), target.kinds.contains(kind) else { return false }
            if case .hostile(.malformedFrame?) = scheduled.action { return false }
            return true
        }
    }

    /// The schedule as `torture --list-faults` prints it: "<when> <action>" a line.
    var listing: [String] {
        actions.map { "\($0.at.traceFormatted) \($0.action.traceWords)" }
    }

    /// Applies every action at its time from now, printing each; returns when the schedule
    /// is done or the task is cancelled.
    func run(on live: LiveTestServer, announce: @escaping @Sendable (String) -> Void) async {
        await run(announce: announce) { action, hostile in apply(action, to: live, hostile: &hostile) }
    }

    /// Applies every action at its time from now to the proxy (every connection), printing
    /// each; returns when the schedule is done or the task is cancelled.
    func run(on proxy: WebSocketProxy, announce: @escaping @Sendable (String) -> Void) async {
        await run(announce: announce) { action, hostile in apply(action, to: proxy, hostile: &hostile) }
    }

    /// The one timetable both subjects follow: each action at its instant, through `apply`.
    private func run(
        announce: @escaping @Sendable (String) -> Void,
        apply: (SimulationAction, inout HostileServer?) -> String?
    ) async {
        let start = ContinuousClock.now
        var hostile: HostileServer?
        for scheduled in actions {
            do {
                try await ContinuousClock().sleep(until: start + scheduled.at)
            } catch {
                return
            }
            if let line = apply(scheduled.action, &hostile) {
                announce("fault \(scheduled.at.traceFormatted): \(line)")
            }
        }
    }

    /// Applies one action through the proxy, to every connection, in the server's words.
    private func apply(_ action: SimulationAction, to proxy: WebSocketProxy, hostile: inout HostileServer?) -> String? {
        switch action {
        case .refuseConnections(let refuse):
            do {
                try proxy.refuseConnections(refuse)
            } catch {
                return "refuse \(refuse) failed: \(error)"
            }
            return refuse ? "refuse connections" : "accept connections"
        case .failHandshakes(let status):
            proxy.failHandshakes(.all, status: status)
            return status.map { "handshakes answered \($0)" } ?? "handshakes accepted"
        case .hangHandshakes(let hang):
            proxy.hangHandshakes(.all, hang)
            return hang ? "handshakes hang" : "handshakes answered"
        case .closeConnection(let code, let reason):
            proxy.close(.all, code: code, reason: reason)
            return "close \(code.rawValue) \"\(reason)\""
        case .resetConnection:
            proxy.reset(.all)
            return "reset"
        case .freeze:
            proxy.freeze(.all)
            return "freeze"
        case .thaw:
            proxy.thaw(.all)
            return "thaw"
        case .setLatency(let latency):
            proxy.setLatency(.all, latency)
            return "latency \(latency.traceFormatted)"
        case .hostile(let next):
            if case .slowHandshake? = hostile { proxy.hangHandshakes(.all, false) }
            if case .acceptThenClose? = hostile { proxy.acceptThenClose(.all, code: nil) }
            hostile = next
            switch next {
            case .acceptThenClose(let code)?:
                proxy.acceptThenClose(.all, code: code, reason: "hostile server")
                return "accept then close \(code.rawValue)"
            case .slowHandshake?:
                proxy.hangHandshakes(.all, true)
                return "handshakes hang (a slow handshake)"
            case .malformedFrame?, nil:
                return "hostile server off"
            }
        default:
            // Restart, idle timeout and broadcasts are not in a proxy's schedule (`Target.proxy`).
            return nil
        }
    }

    /// Applies one action; its description, or nil when there is nothing to say (a broadcast).
    private func apply(_ action: SimulationAction, to live: LiveTestServer, hostile: inout HostileServer?) -> String? {
        let server = live.server
        switch action {
        case .refuseConnections(let refuse):
            do {
                try server.refuseConnections(refuse)
            } catch {
                return "refuse \(refuse) failed: \(error)"
            }
            return refuse ? "refuse connections" : "accept connections"
        case .failHandshakes(let status):
            server.failHandshakes(status: status)
            return status.map { "handshakes answered \($0)" } ?? "handshakes accepted"
        case .hangHandshakes(let hang):
            server.hangHandshakes(hang)
            return hang ? "handshakes hang" : "handshakes answered"
        case .broadcast(let topic, let text):
            live.broadcast(topic: topic, text: text)
            return nil
        case .closeConnection(let code, let reason):
            server.closeAll(code: code, reason: reason)
            return "close \(code.rawValue) \"\(reason)\""
        case .resetConnection:
            server.resetAll()
            return "reset"
        case .freeze:
            server.freeze()
            return "freeze"
        case .thaw:
            server.thaw()
            return "thaw"
        case .setLatency(let latency):
            server.setLatency(latency)
            return "latency \(latency.traceFormatted)"
        case .restartServer:
            live.restart()
            return "restart"
        case .setIdleTimeout(let timeout):
            server.setIdleTimeout(timeout)
            return timeout.map { "idle timeout \($0.traceFormatted)" } ?? "no idle timeout"
        case .hostile(let next):
            // Undo the behaviour in force, then start the next.
            if case .slowHandshake? = hostile { server.hangHandshakes(false) }
            if case .acceptThenClose? = hostile { server.acceptThenClose(code: nil) }
            hostile = next
            switch next {
            case .acceptThenClose(let code)?:
                server.acceptThenClose(code: code, reason: "hostile server")
                return "accept then close \(code.rawValue)"
            case .slowHandshake?:
                server.hangHandshakes(true)
                return "handshakes hang (a slow handshake)"
            case .malformedFrame?, nil:
                return "hostile server off"
            }
        default:
            return nil
        }
    }
}

extension RealTimeFaults {
    /// The usage lines of the fault options `serve` and `torture` share.
    static let usage = """
          --fault-profile P        storm (every server fault kind, each --fault-interval apart on average)
                                   or swarm (the kinds and rates the seed's swarm mix draws, as explore
                                   does: a few seconds to ten minutes apart) (default storm)
          --fault-interval D       storm's mean time between two faults of one kind, 1s to 1h (default 20s)
        """

    /// Reads `--fault-profile` and `--fault-interval` for a schedule of `seed` (nil: no
    /// schedule, and then neither option may be given).
    static func parse(
        _ arguments: inout Arguments, seed: UInt64?, duration: Duration, target: Target = .server
    ) throws(ArgumentError) -> RealTimeFaults? {
        let profile = try arguments.choice("--fault-profile", from: Profile.allCases.map(\.rawValue))
        let interval = try arguments.duration("--fault-interval", in: .seconds(1)...(.seconds(3600)))
        guard let seed else {
            if profile != nil || interval != nil {
                throw .conflict("--fault-profile and --fault-interval shape a --faults schedule: give --faults SEED")
            }
            return nil
        }
        let chosen = profile.flatMap(Profile.init(rawValue:)) ?? .storm
        if chosen == .swarm, interval != nil {
            throw .conflict("--fault-interval sets storm's rate; swarm draws its own")
        }
        return RealTimeFaults(
            seed: seed, profile: chosen, interval: interval ?? defaultInterval, duration: duration, target: target)
    }
}
