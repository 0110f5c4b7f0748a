import LiveConnection

extension VirtualClock {
    /// A point in virtual time: whole nanoseconds since the simulation started.
    ///
    /// ```swift
    /// let deadline = VirtualClock.Instant.start.advanced(by: .milliseconds(1500))
    /// print(deadline)  // "1500ms"
    /// ```
    ///
    /// Integer nanoseconds, not `Duration`'s attoseconds or a `Double`, so arithmetic is
    /// exact, comparisons never disagree between platforms, and a trace prints the same
    /// bytes everywhere. Arithmetic saturates instead of trapping: a deadline of "never"
    /// (`.max`) plus anything is still "never".
    public struct Instant: InstantProtocol, Hashable, Sendable, CustomStringConvertible {
        public typealias Duration = Swift.Duration

        /// Nanoseconds since the start of the simulation.
        public let nanosecondsSinceStart: Int64

        /// The instant the given number of nanoseconds after the start.
        public init(nanosecondsSinceStart: Int64) {
            self.nanosecondsSinceStart = nanosecondsSinceStart
        }

        /// The start of the simulation, virtual time zero.
        public static let start = Instant(nanosecondsSinceStart: 0)

        /// The latest representable instant; a deadline that never comes.
        public static let max = Instant(nanosecondsSinceStart: .max)

        /// The time since the start of the simulation, as a `Duration`.
        public var sinceStart: Duration { .nanoseconds(nanosecondsSinceStart) }

        public func advanced(by duration: Duration) -> Instant {
            let (sum, overflow) = nanosecondsSinceStart.addingReportingOverflow(duration.nanoseconds)
            if overflow { return Instant(nanosecondsSinceStart: duration < .zero ? .min : .max) }
            return Instant(nanosecondsSinceStart: sum)
        }

        public func duration(to other: Instant) -> Duration {
            let (difference, overflow) = other.nanosecondsSinceStart.subtractingReportingOverflow(nanosecondsSinceStart)
            if overflow {
                return .nanoseconds(other.nanosecondsSinceStart < nanosecondsSinceStart ? Int64.min : Int64.max)
            }
            return .nanoseconds(difference)
        }

        /// The instant `rhs` after `lhs`, saturating.
        public static func + (lhs: Instant, rhs: Duration) -> Instant { lhs.advanced(by: rhs) }

        /// The instant `rhs` before `lhs`, saturating.
        public static func - (lhs: Instant, rhs: Duration) -> Instant { lhs.advanced(by: .zero - rhs) }

        /// The time from `rhs` to `lhs`.
        public static func - (lhs: Instant, rhs: Instant) -> Duration { rhs.duration(to: lhs) }

        public static func < (lhs: Instant, rhs: Instant) -> Bool {
            lhs.nanosecondsSinceStart < rhs.nanosecondsSinceStart
        }

        /// Milliseconds since the start, exact: "3500ms", "0.000001ms" for one nanosecond —
        /// the one spelling of a duration in traces, logs and verdicts
        /// (`Duration.traceFormatted`), so a time reads the same wherever it is printed.
        ///
        /// Milliseconds because that is the grain of every timing rule the simulator checks
        /// (heartbeats, backoff); the fraction is printed only when there is one, so the
        /// common case stays short in a trace.
        public var description: String { sinceStart.traceFormatted }
    }
}
