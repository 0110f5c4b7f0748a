import LiveConnection
import LiveConnectionTraces

// The hostile-server fault: a server that lets the manager in and then fails it, or never
// quite lets it in. Each arrival picks one behaviour and holds it for a while, or flaps
// between it and health; what the manager must do throughout is keep to its backoff
// (`no-hot-loop`) and open again once the server is healthy (`eventually-open`).
extension ScheduleBuilder {
    func hostileServer(at t: Duration, using random: inout some RandomSource) -> [ScheduledAction] {
        func hold(_ low: Duration, _ high: Duration) -> Duration {
            .milliseconds(random.duration(in: low...high).nanoseconds / 1_000_000)
        }
        let connectTimeout = configuration.connectTimeout
        // The hostile behaviour and the action that ends it.
        func behaviour(terminal: Bool) -> (on: SimulationAction, off: SimulationAction) {
            switch random.uniform(below: 4) {
            case 0:
                let codes: [CloseCode] =
                    terminal
                    ? [.normal, .internalError, .tokenExpired, .forbidden] : [.normal, .internalError, .tokenExpired]
                return (
                    .hostile(.acceptThenClose(codes[Int(random.uniform(below: UInt64(codes.count)))])), .hostile(nil)
                )
            case 1:
                // Answers 401 (credentials expired) to every handshake, refresh or not.
                return (.failHandshakes(status: 401), .failHandshakes(status: nil))
            case 2:
                // Between half and twice the connect timeout: sometimes in time, mostly not.
                return (.hostile(.slowHandshake(hold(connectTimeout / 2, connectTimeout * 2))), .hostile(nil))
            default:
                return (.hostile(.malformedFrame), .hostile(nil))
            }
        }
        if random.chance(0.3) {
            // Flapping: healthy stretches (long enough, sometimes, for a connection to answer
            // a heartbeat) between hostile ones, for a few minutes.
            let (on, off) = behaviour(terminal: false)
            let end = t + hold(.seconds(30), .seconds(300))
            var actions: [ScheduledAction] = []
            var at = t
            while at < end {
                actions.append(ScheduledAction(at: at, on))
                at += hold(.seconds(1), .seconds(30))
                actions.append(ScheduledAction(at: at, off))
                at += hold(.seconds(1), configuration.heartbeatInterval * 3)
            }
            return actions
        }
        let (on, off) = behaviour(terminal: true)
        // As often as not, 401 for 10 to 30 minutes, "forever" as far as the backoff can
        // tell (it reaches any policy's cap in minutes); the rest for 10 s to 3 min.
        let forever = on == .failHandshakes(status: 401) && random.chance(0.5)
        let until = t + (forever ? hold(.seconds(600), .seconds(1800)) : hold(.seconds(10), .seconds(180)))
        var actions = [ScheduledAction(at: t, on), ScheduledAction(at: until, off)]
        // 4003 stops the manager; the user tries again later.
        if on == .hostile(.acceptThenClose(.forbidden)) {
            actions.append(ScheduledAction(at: until + hold(.seconds(1), .seconds(60)), .connect(endpoint: 0)))
        }
        return actions
    }
}
