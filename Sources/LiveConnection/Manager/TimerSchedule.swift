/// The manager's armed timers, and which job sleeps for them: one job sleeps until the
/// earliest deadline, fires what is due, and sleeps again until the next.
///
/// ```swift
/// var schedule = TimerSchedule()
/// if let sleeper = schedule.arm(.retry, at: .seconds(3)) { /* spawn a job sleeping until sleeper.deadline */ }
/// // That job wakes and, on the actor:
/// let limit = schedule.lastSerial
/// while let timer = schedule.takeDue(now: now, armedUpTo: limit) { /* fire timer */ }
/// let next = schedule.nextWake()   // sleep again until then, or end the job on nil
/// ```
///
/// Why one job: a sleeping child task per timer cost a task, its start, an `AsyncStream`
/// hand-off to ``ConnectionManager/run()``, its wake-up and an actor hop per timer armed
/// (a disarmed one included: it woke at its deadline to be dropped), and a heartbeat arms
/// two. The simulator's profile put the shell's jobs at most of its CPU time
/// (Benchmarks/results/simulator.md). Here arming a timer spawns nothing unless its
/// deadline is earlier than the one the sleeping job wakes at. The job cannot be woken
/// early (that would take a cancellation race per timer, which costs more than it saves),
/// so a job that wakes to find a newer one took over ends, and a disarmed deadline still
/// costs the job one wake-up, never a task.
///
/// Deterministic: timers fire in (deadline, arming order), never in hash order. A handful
/// of timers is armed at a time (retry, connect timeout, heartbeat, pong deadline, the
/// app's ping deadlines), so a plain array scanned in order is all the structure needed.
struct TimerSchedule {
    private struct Armed {
        let timer: TimerID
        let deadline: Duration
        /// The arming's number: orders equal deadlines, and fences a zero delay armed while
        /// the due timers fire.
        let serial: UInt64
    }

    /// A job that sleeps for the schedule: its number and the deadline it wakes at.
    struct Sleeper: Equatable {
        let serial: UInt64
        var deadline: Duration
    }

    private var armed: [Armed] = []
    /// The number of the last arming (and of the sleeper it started, if it started one).
    private(set) var lastSerial: UInt64 = 0
    /// The job that will fire the next due timer; nil when none sleeps.
    private(set) var sleeper: Sleeper?

    /// Arms `timer` at `deadline` (on the manager's elapsed clock), replacing whatever was
    /// armed under its ID. Returns the sleeper to start when no job wakes by then.
    mutating func arm(_ timer: TimerID, at deadline: Duration) -> Sleeper? {
        lastSerial += 1
        disarm(timer)
        armed.append(Armed(timer: timer, deadline: deadline, serial: lastSerial))
        if let sleeper, sleeper.deadline <= deadline { return nil }
        let fresh = Sleeper(serial: lastSerial, deadline: deadline)
        sleeper = fresh
        return fresh
    }

    /// Disarms `timer`; a job sleeping for it wakes to find nothing due.
    mutating func disarm(_ timer: TimerID) {
        armed.removeAll { $0.timer == timer }
    }

    /// Whether `serial` is the job the schedule counts on (a superseded one should end).
    func isCurrent(_ serial: UInt64) -> Bool { sleeper?.serial == serial }

    /// What the job `serial`, woken at `now`, does next.
    enum Wake: Equatable {
        /// A newer job took over, or nothing is armed.
        case end
        /// Nothing is due (what it slept for was disarmed): sleep on, without the actor.
        case sleep(until: Duration)
        /// Something is due: fire it on the actor.
        case fire
    }

    /// Decides the woken job's next step without touching the timers' owner: a disarmed
    /// deadline (every answered heartbeat's pong deadline) then costs no actor hop.
    mutating func wake(_ serial: UInt64, now: Duration) -> Wake {
        guard isCurrent(serial) else { return .end }
        if let index = earliest(), armed[index].deadline <= now { return .fire }
        return nextWake().map { .sleep(until: $0) } ?? .end
    }

    /// Removes and returns the earliest timer due at `now` among those armed up to arming
    /// number `limit`, if any. A timer armed while the due ones fire (a zero delay) waits
    /// for the next wake-up, as a zero sleep lets everything runnable run first.
    mutating func takeDue(now: Duration, armedUpTo limit: UInt64) -> TimerID? {
        guard let index = earliest(), armed[index].deadline <= now, armed[index].serial <= limit else { return nil }
        return armed.remove(at: index).timer
    }

    /// Where the current job sleeps next: the earliest deadline, or nil when nothing is
    /// armed (the job ends; the next ``arm(_:at:)`` starts another).
    mutating func nextWake() -> Duration? {
        guard let index = earliest() else {
            sleeper = nil
            return nil
        }
        sleeper?.deadline = armed[index].deadline
        return armed[index].deadline
    }

    /// The index of the earliest armed timer by (deadline, serial).
    private func earliest() -> Int? {
        var best: Int?
        for index in armed.indices {
            guard let current = best else {
                best = index
                continue
            }
            if (armed[index].deadline, armed[index].serial) < (armed[current].deadline, armed[current].serial) {
                best = index
            }
        }
        return best
    }
}
