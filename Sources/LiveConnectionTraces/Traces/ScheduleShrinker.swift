/// Shrinks a failing schedule to a small one that still fails: delta debugging (ddmin)
/// over the actions, then simpler arguments and earlier times, repeated to a fixed point.
///
/// ```swift
/// let shrinker = ScheduleShrinker(maximumAttempts: 500)
/// let result = shrinker.shrink(schedule) { candidate in
///     run(candidate).violations.contains { $0.rule == .singleLiveTransport }  // same invariant
/// }
/// print(result.schedule.count, result.attempts)
/// ```
///
/// The predicate must say whether a candidate still fails *in the same way* (the same
/// invariant): shrinking towards any failure at all tends to slide to a different,
/// shallower bug. Zeller and Hildebrandt's ddmin (2002, ``DeltaDebugging``) tries halves, then quarters, and
/// so on, keeping any subset or complement that still fails; the result is 1-minimal
/// (removing any single action makes it pass) unless the attempt budget ran out first.
/// Then each action's arguments are replaced by simpler ones
/// (``SimulationAction/simplifications``) and each time is moved earlier (to the
/// previous action's time, halfway to it, or rounded down), keeping only the changes
/// that still fail.
///
/// Results of the predicate are memoized, so no candidate is run twice.
public struct ScheduleShrinker: Sendable {
    /// At most this many predicate calls (each is a whole simulation run).
    public var maximumAttempts: Int

    public init(maximumAttempts: Int = 2_000) {
        precondition(maximumAttempts >= 0, "maximumAttempts must not be negative")
        self.maximumAttempts = maximumAttempts
    }

    /// The shrunk schedule and what it cost.
    public struct Result: Hashable, Sendable {
        /// The smallest failing schedule found (the input itself if nothing smaller fails).
        public var schedule: [ScheduledAction]
        /// Predicate calls made.
        public var attempts: Int
        /// Whether the budget ran out (the result may then not be 1-minimal).
        public var budgetExhausted: Bool
    }

    /// Shrinks `schedule`, which must fail (`stillFails(schedule)` is true; if it is not,
    /// the schedule is returned unchanged after that one call).
    public func shrink<E: Error>(
        _ schedule: [ScheduledAction], stillFails: ([ScheduledAction]) throws(E) -> Bool
    ) throws(E) -> Result {
        // The oracle keeps the predicate only for the duration of this call.
        return try withoutActuallyEscaping(stillFails) { (predicate) throws(E) -> Result in
            var oracle = Oracle(budget: maximumAttempts, predicate: predicate)
            var current = schedule
            guard try oracle.fails(current) != false else {
                return Result(schedule: schedule, attempts: oracle.attempts, budgetExhausted: oracle.exhausted)
            }
            while true {
                let before = current
                current = try minimize(current, &oracle)
                current = try simplify(current, &oracle)
                if current == before || oracle.exhausted { break }
            }
            return Result(schedule: current, attempts: oracle.attempts, budgetExhausted: oracle.exhausted)
        }
    }

    /// ddmin (``DeltaDebugging``), each candidate judged by the memoizing oracle.
    private func minimize<E: Error>(_ schedule: [ScheduledAction], _ oracle: inout Oracle<E>) throws(E)
        -> [ScheduledAction]
    {
        var search = DeltaDebugging(schedule)
        while let candidate = search.nextCandidate() {
            // A spent budget answers nil: not taken, as ddmin takes nothing it has not seen fail.
            let fails = try oracle.fails(candidate) == true
            search.record(fails: fails, budgetSpent: oracle.exhausted)
        }
        return search.current
    }

    /// Simpler arguments, then earlier times, one action at a time.
    private func simplify<E: Error>(_ schedule: [ScheduledAction], _ oracle: inout Oracle<E>) throws(E)
        -> [ScheduledAction]
    {
        var current = schedule
        for index in current.indices {
            for simpler in current[index].action.simplifications {
                var candidate = current
                candidate[index].action = simpler
                if try oracle.fails(candidate) == true {
                    current = candidate
                    break
                }
            }
            let floor = index == 0 ? Duration.zero : current[index - 1].at
            for earlier in Self.earlierTimes(than: current[index].at, notBefore: floor) {
                var candidate = current
                candidate[index].at = earlier
                if try oracle.fails(candidate) == true {
                    current = candidate
                    break
                }
            }
        }
        return current
    }

    /// Times to try instead of `time`, simplest first: the floor itself, halfway to it
    /// (repeated shrinking passes then bisect towards the earliest time that still fails),
    /// then `time` rounded down to a whole second and to a tenth of a second; all at or
    /// after `floor` and before `time`, rounded to whole milliseconds.
    static func earlierTimes(than time: Duration, notBefore floor: Duration) -> [Duration] {
        let nanos = time.nanoseconds
        let halfway = floor.nanoseconds + (nanos - floor.nanoseconds) / 2
        let candidates: [Duration] = [
            floor,
            .nanoseconds(halfway - halfway % 1_000_000),
            .nanoseconds(nanos - nanos % 1_000_000_000),
            .nanoseconds(nanos - nanos % 100_000_000),
        ]
        var result: [Duration] = []
        for candidate in candidates where candidate >= floor && candidate < time && !result.contains(candidate) {
            result.append(candidate)
        }
        return result
    }
}

/// The predicate with a budget and a memo.
private struct Oracle<E: Error> {
    let budget: Int
    let predicate: ([ScheduledAction]) throws(E) -> Bool
    var memo: [[ScheduledAction]: Bool] = [:]
    var attempts = 0
    var exhausted: Bool { attempts >= budget }

    init(budget: Int, predicate: @escaping ([ScheduledAction]) throws(E) -> Bool) {
        self.budget = budget
        self.predicate = predicate
    }

    /// Whether `candidate` fails; `nil` once the budget is spent (treated as "don't know": not taken).
    mutating func fails(_ candidate: [ScheduledAction]) throws(E) -> Bool? {
        if let known = memo[candidate] { return known }
        guard !exhausted else { return nil }
        attempts += 1
        let result = try predicate(candidate)
        memo[candidate] = result
        return result
    }
}
