/// The manager's clock as durations since the manager was made: timer deadlines are plain
/// `Duration`s that order and compare, whatever the injected clock's `Instant` type is.
///
/// ```swift
/// let clock = ElapsedClock(ContinuousClock())
/// let deadline = clock.now() + .seconds(25)
/// try await clock.sleep(until: deadline)
/// ```
struct ElapsedClock: Sendable {
    /// Time since the origin.
    let now: @Sendable () -> Duration
    /// Sleeps until the origin plus the deadline (returns at once, or still suspends under a
    /// virtual clock, when it has passed).
    private let sleepUntil: @Sendable (_ deadline: Duration) async throws -> Void

    init<C: Clock>(_ clock: C) where C.Duration == Duration {
        let origin = clock.now
        now = { origin.duration(to: clock.now) }
        sleepUntil = { deadline in try await clock.sleep(until: origin.advanced(by: deadline), tolerance: nil) }
    }

    /// Sleeps until `deadline` since the origin; throws when the task is cancelled.
    func sleep(until deadline: Duration) async throws { try await sleepUntil(deadline) }
}
