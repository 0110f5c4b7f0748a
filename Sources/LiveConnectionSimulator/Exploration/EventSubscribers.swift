public import LiveConnection
import LiveConnectionTraces

extension ConnectionManager {
    /// `events()`, with `monitor` told in the same turn of the actor, so it knows exactly
    /// which of the manager's decisions the new stream owes: the phase last reported, then
    /// everything decided after it.
    ///
    /// ```swift
    /// let (id, stream) = await manager.events(reportingTo: monitor)
    /// for await event in stream { monitor.subscriber(id, received: event) }
    /// ```
    ///
    /// Only the public `events()` is used: the app's view, judged against the decisions
    /// the observer saw. Nothing can run on the actor between the two calls.
    public func events(reportingTo monitor: InvariantMonitor) -> (subscriber: Int, stream: ConnectionEvents) {
        let id = monitor.subscriberJoins()
        return (id, events())
    }
}

/// When a run's `events()` subscribers join: one at the start, as an app that subscribes
/// before connecting, and two late ones at moments drawn from the scenario's manager seed,
/// as screens that open while the connection is in whatever phase it is.
///
/// ```swift
/// EventSubscribers.moments(for: scenario)   // [0 ms, 1_234_567 ms, 2_980_004 ms]
/// ```
///
/// Drawn from their own stream (the manager seed mixed with a constant), so the fault
/// schedule and the manager's draws are the same with or without subscribers, and a trace
/// (which records the manager seed) replays the same moments.
enum EventSubscribers {
    static let lateCount = 2

    static func moments(for scenario: Scenario) -> [Duration] {
        var random = Xoshiro256StarStar(seed: scenario.managerSeed ^ 0x6576_656E_7473_5542)
        let late = (0..<lateCount).map { _ in
            Duration.milliseconds(random.duration(in: .zero...scenario.duration).nanoseconds / 1_000_000)
        }
        return [.zero] + late.sorted()
    }
}
