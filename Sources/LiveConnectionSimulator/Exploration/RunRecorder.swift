import LiveConnection
import Synchronization

/// The run's event log and counters, written from the observer and the driver (both on
/// the simulation's thread, in the simulation's order).
///
/// ```swift
/// let recorder = RunRecorder(clock: clock, recordsLog: true)
/// recorder.action(.resetConnection)
/// recorder.lines   // ["3000 ms action reset"]
/// ```
final class RunRecorder: Sendable {
    private struct State {
        var lines: [String] = []
        var inputs = 0
        var faults = FaultCounts()
        var live: Generation?
        var lastClosed: Generation?
    }

    private let state = Mutex(State())
    private let clock: VirtualClock
    private let recordsLog: Bool

    init(clock: VirtualClock, recordsLog: Bool) {
        self.clock = clock
        self.recordsLog = recordsLog
    }

    var lines: [String] { state.withLock { $0.lines } }
    var inputs: Int { state.withLock { $0.inputs } }
    var faults: FaultCounts { state.withLock { $0.faults } }

    /// The most recently ended generation, if it is not the live one: where a stale callback comes from.
    var staleGeneration: Generation? { state.withLock { $0.lastClosed } }

    func observe(_ input: Input, _ effects: [Effect]) {
        let line = recordsLog ? "\(clock.now) input \(input) -> \(effects.map(\.description).joined(separator: "; "))" : nil
        state.withLock { state in
            state.inputs += 1
            for effect in effects {
                switch effect {
                case .openConnection(let g, _): state.live = g
                case .closeConnection(let g, _, _):
                    if state.live == g { state.live = nil }
                    state.lastClosed = g
                default: break
                }
            }
            if let line { state.lines.append(line) }
        }
    }

    func action(_ action: SimulationAction, applied: Bool = true) {
        let line = recordsLog ? "\(clock.now) action \(describe(action))\(applied ? "" : " (nothing to do)")" : nil
        state.withLock { state in
            if applied, let kind = FaultKind(of: action) { state.faults[kind] += 1 }
            if let line { state.lines.append(line) }
        }
    }

    func note(_ text: @autoclosure () -> String) {
        guard recordsLog else { return }
        let line = "\(clock.now) \(text())"
        state.withLock { $0.lines.append(line) }
    }
}

/// A one-line spelling of an action for the run log (the trace format has its own).
func describe(_ action: SimulationAction) -> String {
    switch action {
    case .refuseConnections(let on): "refuse-connections \(on)"
    case .failHandshakes(let status): "fail-handshakes \(status.map(String.init) ?? "off")"
    case .hangHandshakes(let on): "hang-handshakes \(on)"
    case .broadcast(let topic, let text): "broadcast \(topic) \(text)"
    case .closeConnection(let code, let reason): "close code=\(code) reason=\"\(reason)\""
    case .resetConnection: "reset"
    case .freeze: "freeze"
    case .thaw: "thaw"
    case .setLatency(let latency): "latency \(latency.traceFormatted)"
    case .restartServer: "restart"
    case .setIdleTimeout(let timeout): "idle-timeout \(timeout.map(\.traceFormatted) ?? "off")"
    case .hostile(let behaviour): "hostile \(behaviour?.traceWords ?? "off")"
    case .deliverStale(let callback): "stale \(callback.rawValue)"
    case .duplicateNextCallback: "duplicate-next"
    case .delaySendCompletion: "delay-send-completion"
    case .background: "background"
    case .foreground: "foreground"
    case .connect(let endpoint): "connect \(endpoint)"
    case .disconnect: "disconnect"
    case .send(let text): "send \(text)"
    case .ping(let timeout): "ping \(timeout.traceFormatted)"
    case .subscribe(let topic): "subscribe \(topic)"
    case .unsubscribe(let topic): "unsubscribe \(topic)"
    }
}
