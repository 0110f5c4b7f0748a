import LiveConnection
import LiveConnectionTraces
import SimulationKernel

import typealias LiveConnection.Mutex

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

    func observe(_ input: Input, _ effects: [Effect]) {
        let line =
            recordsLog ? "\(clock.now) input \(input) -> \(effects.map(\.description).joined(separator: "; "))" : nil
        state.withLock { state in
            state.inputs += 1
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
    case .deliverStale(let callback, let linger):
        "stale \(callback.rawValue)" + (linger == .zero ? "" : " after \(linger.traceFormatted)")
    case .duplicateNextCallback: "duplicate-next"
    case .delaySendCompletion: "delay-send-completion"
    case .setForeground(let foreground): foreground ? "foreground" : "background"
    case .connect(let endpoint): "connect \(endpoint)"
    case .disconnect: "disconnect"
    case .disconnectWith(let code, let reason): "disconnect \(code.rawValue) \(reason)"
    case .send(let text): "send \(text)"
    case .ping(let timeout): "ping \(timeout.traceFormatted)"
    case .subscribe(let topic): "subscribe \(topic)"
    case .unsubscribe(let topic): "unsubscribe \(topic)"
    case .path(let viable): viable ? "path viable" : "path unviable"
    }
}
