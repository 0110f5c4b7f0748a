import Foundation
import LiveConnection

// What the app wants, from the app's own calls (``AppCall``). A call is told when the app
// makes it, but the manager may first handle inputs queued ahead of it (a heartbeat due at
// the same instant): the wish takes effect when the manager receives the call — the input
// of its kind — and then as the app made it, whatever the shell forwarded. A call the
// shell never forwarded takes effect once the app's call has returned (``settleAppCalls``).
extension MonitorState {
    /// The app made `call`; it takes effect at its input, or when the call has returned.
    mutating func noteAppCall(_ call: AppCall) {
        pendingCalls.append(call)
    }

    /// The app's calls have returned (the driver checks after every action): any call the
    /// shell did not hand to the machine still changes what the app wants.
    mutating func settleAppCalls() {
        let calls = pendingCalls
        pendingCalls = []
        for call in calls { apply(call) }
    }

    /// The oldest pending call of the input's kind, removed; nil if none is pending.
    mutating func takePendingCall(matching input: Input) -> AppCall? {
        guard let kind = AppCall(input).map(Self.kind),
            let index = pendingCalls.firstIndex(where: { Self.kind($0) == kind })
        else { return nil }
        return pendingCalls.remove(at: index)
    }

    /// What the app wants after `call`.
    mutating func apply(_ call: AppCall) {
        switch call {
        case .connect(let url):
            wanted = true
            stopped = false
            lastConnectURL = url
            failuresSinceIntent = 0
        case .disconnect:
            wanted = false
            stopped = true
        case .setForeground(let value):
            foreground = value
            if value { failuresSinceIntent = 0 }
        case .subscribe(let topic):
            if !topics.contains(topic) { topics.append(topic) }
        case .unsubscribe(let topic):
            topics.removeAll { $0 == topic }
        }
    }

    private static func kind(_ call: AppCall) -> Int {
        switch call {
        case .connect: 0
        case .disconnect: 1
        case .setForeground: 2
        case .subscribe: 3
        case .unsubscribe: 4
        }
    }
}

extension AppCall {
    /// The call an intent input stands for (nil for inputs that are not the app's).
    init?(_ input: Input) {
        switch input {
        case .connect(let endpoint): self = .connect(endpoint.url)
        case .disconnect: self = .disconnect
        case .setForeground(let value): self = .setForeground(value)
        case .subscribe(let topic): self = .subscribe(topic)
        case .unsubscribe(let topic): self = .unsubscribe(topic)
        default: return nil
        }
    }
}
