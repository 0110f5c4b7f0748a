import Foundation
import LiveConnection
import LiveConnectionTraces

/// Lays out a run's external actions from a ``FaultMix``: Poisson arrivals per kind,
/// each with the actions that kind consists of.
///
/// ```swift
/// var random = Xoshiro256StarStar(seed: 3)
/// let builder = ScheduleBuilder(configuration: .init(), duration: .seconds(600), feedTopic: "feed")
/// let schedule = builder.schedule(for: .all(every: .seconds(60)), using: &random)
/// // [0 ms subscribe feed, 0 ms connect 0, … 41 s reset, …] in time order
/// ```
struct ScheduleBuilder {
    let configuration: ConnectionConfiguration
    let duration: Duration
    let feedTopic: String

    func schedule(for mix: FaultMix, using random: inout some RandomSource) -> [ScheduledAction] {
        var actions: [ScheduledAction] = [
            ScheduledAction(at: .zero, .subscribe(feedTopic)),
            ScheduledAction(at: .zero, .connect(endpoint: 0)),
        ]
        var counter = 0
        for rate in mix.rates {
            var at = Duration.zero
            while true {
                at += exponential(mean: rate.meanInterval, using: &random)
                guard at < duration else { break }
                counter += 1
                actions += self.actions(for: rate.kind, at: at, number: counter, using: &random)
            }
        }
        // Time order; equal times keep the order they were generated in. An "off" action
        // that would fall after the end is dropped: the run ends in whatever state it is.
        return inTimeOrder(actions.filter { $0.at < duration })
    }

    /// Sorts positions by (time, position) and reads the actions once in that order: a
    /// swap then moves two integers, not an action and its strings (sorting the actions
    /// themselves was 4 % of an exploration's CPU).
    private func inTimeOrder(_ actions: [ScheduledAction]) -> [ScheduledAction] {
        let times = actions.map(\.at)
        return actions.indices.sorted { (times[$0], $0) < (times[$1], $1) }.map { actions[$0] }
    }

    private func actions(
        for kind: FaultKind, at t: Duration, number: Int, using random: inout some RandomSource
    ) -> [ScheduledAction] {
        let p = configuration.heartbeatInterval
        let timeout = configuration.heartbeatTimeout
        func hold(_ low: Duration, _ high: Duration) -> Duration {
            let drawn = random.duration(in: low...high)
            return .milliseconds(drawn.nanoseconds / 1_000_000)
        }
        func pick<T>(_ options: [T]) -> T { options[Int(random.uniform(below: UInt64(options.count)))] }
        func at(_ offset: Duration, _ action: SimulationAction) -> ScheduledAction {
            ScheduledAction(at: t + offset, action)
        }
        switch kind {
        case .refuse:
            return [
                at(.zero, .refuseConnections(true)), at(hold(.seconds(1), .seconds(60)), .refuseConnections(false)),
            ]
        case .handshakeFailure:
            let status = pick([401, 403, 500, 503])
            var result = [
                at(.zero, .failHandshakes(status: status)),
                at(hold(.seconds(1), .seconds(60)), .failHandshakes(status: nil)),
            ]
            // 403 stops the manager; the user tries again later.
            if status == 403 { result.append(at(hold(.seconds(61), .seconds(120)), .connect(endpoint: 0))) }
            return result
        case .handshakeHang:
            return [at(.zero, .hangHandshakes(true)), at(hold(.seconds(1), .seconds(60)), .hangHandshakes(false))]
        case .close:
            let code = pick([CloseCode.normal, .goingAway, .internalError, CloseCode(4000), .tokenExpired])
            return [at(.zero, .closeConnection(code: code, reason: "server close"))]
        case .terminalClose:
            let code = pick([CloseCode.forbidden, .policyViolation])
            return [
                at(.zero, .closeConnection(code: code, reason: "go away")),
                at(hold(.seconds(1), .seconds(60)), .connect(endpoint: 0)),
            ]
        case .reset:
            return [at(.zero, .resetConnection)]
        case .freeze:
            let upper = (p + timeout) * 3
            return [at(.zero, .freeze), at(hold(.milliseconds(100), upper), .thaw)]
        case .latency:
            // At most T/8 one way: a round trip stays well inside the pong deadline.
            let cap = min(timeout / 8, .milliseconds(200))
            return [at(.zero, .setLatency(hold(.zero, cap)))]
        case .restart:
            return [at(.zero, .restartServer)]
        case .idleTimeout:
            let timeoutValue = hold(p / 2, p * 3)
            return [
                at(.zero, .setIdleTimeout(timeoutValue)), at(hold(.seconds(30), .seconds(300)), .setIdleTimeout(nil)),
            ]
        case .staleCallback:
            return [at(.zero, .deliverStale(pick(StaleCallback.swarm)))]
        case .duplicateFrame:
            return [at(.zero, .duplicateNextCallback)]
        case .delayedSend:
            return [at(.zero, .delaySendCompletion)]
        case .background:
            return [at(.zero, .setForeground(false)), at(hold(.seconds(1), .seconds(120)), .setForeground(true))]
        case .disconnect:
            return [at(.zero, .disconnect), at(hold(.seconds(1), .seconds(60)), .connect(endpoint: 0))]
        case .endpointSwitch:
            return [at(.zero, .connect(endpoint: Int(random.uniform(below: 2))))]
        case .commands:
            return [at(.zero, .send(text: "cmd-\(number)"))]
        case .appPing:
            // Shorter than, as long as, and longer than the heartbeat's T: answered, unanswered,
            // or outlived by the connection.
            return [at(.zero, .ping(timeout: pick([timeout / 2, timeout, timeout * 3])))]
        case .subscriptionChurn:
            let topic = "topic-\(random.uniform(below: 3))"
            return [at(.zero, random.chance(0.5) ? .subscribe(topic) : .unsubscribe(topic))]
        case .broadcast:
            return [at(.zero, .broadcast(topic: feedTopic, text: "m\(number)"))]
        case .hostileServer:
            return hostileServer(at: t, using: &random)
        case .networkPath:
            // Blips shorter than T (an open connection survives its probe) and outages
            // longer than P + T (it is found dead, and the manager waits offline).
            let upper = max((p + timeout) * 3, .seconds(120))
            return [at(.zero, .path(viable: false)), at(hold(.milliseconds(100), upper), .path(viable: true))]
        }
    }

    /// An exponential inter-arrival time, at millisecond grain, at least one millisecond.
    private func exponential(mean: Duration, using random: inout some RandomSource) -> Duration {
        let u = random.unitDouble()
        let seconds = -mean.seconds * log(1 - u)
        return .milliseconds(max(1, Int64((seconds * 1000).rounded())))
    }
}
