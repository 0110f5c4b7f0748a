import Testing

@testable import LiveConnection

/// The shell's one-job timer schedule: which timer fires when, and when a sleeping job is
/// started, kept, or told to end.
@Suite("Timer schedule")
struct TimerScheduleTests {
    let g = Generation(1)

    @Test("arming starts a sleeping job only when its deadline is earlier than the one the job wakes at")
    func armStartsJobOnlyForAnEarlierDeadline() throws {
        var schedule = TimerSchedule()
        let armedFirst = schedule.arm(.heartbeat(g), at: .seconds(25))
        let first = try #require(armedFirst)
        #expect(first.deadline == .seconds(25))
        let step1 = schedule.arm(.pongDeadline(g), at: .seconds(35))
        #expect(step1 == nil, "a later deadline needs no new job")
        let armedSecond = schedule.arm(.retry, at: .seconds(10))
        let second = try #require(armedSecond, "an earlier one does")
        #expect(second.deadline == .seconds(10))
        #expect(!schedule.isCurrent(first.serial) && schedule.isCurrent(second.serial))
        let step2 = schedule.wake(first.serial, now: .seconds(25))
        #expect(step2 == .end, "the superseded job ends when it wakes")
    }

    @Test("due timers fire in deadline order, equal deadlines in arming order, never in hash order")
    func dueTimersFireInOrder() {
        var schedule = TimerSchedule()
        _ = schedule.arm(.pongDeadline(g), at: .seconds(5))
        _ = schedule.arm(.retry, at: .seconds(3))
        _ = schedule.arm(.heartbeat(g), at: .seconds(5))
        _ = schedule.arm(.connectTimeout(g), at: .seconds(9))
        let limit = schedule.lastSerial
        var fired: [TimerID] = []
        while let timer = schedule.takeDue(now: .seconds(5), armedUpTo: limit) { fired.append(timer) }
        #expect(fired == [.retry, .pongDeadline(g), .heartbeat(g)])
        let step3 = schedule.nextWake()
        #expect(step3 == .seconds(9))
    }

    @Test("re-arming replaces the timer's deadline, and a disarmed timer never fires")
    func rearmAndDisarm() {
        var schedule = TimerSchedule()
        _ = schedule.arm(.heartbeat(g), at: .seconds(25))
        _ = schedule.arm(.heartbeat(g), at: .seconds(50))
        _ = schedule.arm(.pongDeadline(g), at: .seconds(35))
        schedule.disarm(.pongDeadline(g))
        let limit = schedule.lastSerial
        #expect(
            schedule.takeDue(now: .seconds(40), armedUpTo: limit) == nil,
            "neither the old deadline nor the disarmed one")
        let step4 = schedule.takeDue(now: .seconds(50), armedUpTo: limit)
        #expect(step4 == .heartbeat(g))
        let step5 = schedule.takeDue(now: .seconds(50), armedUpTo: limit)
        #expect(step5 == nil, "fires once")
    }

    @Test("a job woken for a disarmed deadline sleeps on to the next one, and ends when nothing is armed")
    func wakeForDisarmedDeadline() throws {
        var schedule = TimerSchedule()
        let armedJob = schedule.arm(.pongDeadline(g), at: .seconds(10))
        let job = try #require(armedJob)
        _ = schedule.arm(.heartbeat(g), at: .seconds(25))
        schedule.disarm(.pongDeadline(g))
        let step6 = schedule.wake(job.serial, now: .seconds(10))
        #expect(step6 == .sleep(until: .seconds(25)))
        let step7 = schedule.wake(job.serial, now: .seconds(25))
        #expect(step7 == .fire)
        schedule.disarm(.heartbeat(g))
        let step8 = schedule.wake(job.serial, now: .seconds(25))
        #expect(step8 == .end)
        let step9 = schedule.arm(.retry, at: .seconds(30))
        #expect(step9 != nil, "with no job sleeping, the next arming starts one")
    }

    @Test("a zero delay armed while the due timers fire waits for the next wake-up")
    func zeroDelayWaitsForTheNextWake() {
        var schedule = TimerSchedule()
        _ = schedule.arm(.heartbeat(g), at: .seconds(25))
        let limit = schedule.lastSerial
        let step10 = schedule.takeDue(now: .seconds(25), armedUpTo: limit)
        #expect(step10 == .heartbeat(g))
        let step11 = schedule.arm(.retry, at: .seconds(25))
        #expect(step11 == nil, "the job is awake: it sleeps again")
        let step12 = schedule.takeDue(now: .seconds(25), armedUpTo: limit)
        #expect(step12 == nil, "armed during this round")
        let step13 = schedule.nextWake()
        #expect(step13 == .seconds(25))
    }
}
