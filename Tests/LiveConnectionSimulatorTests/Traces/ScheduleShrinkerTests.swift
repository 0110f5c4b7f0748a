import LiveConnection
import LiveConnectionSimulator
import Testing

@testable import LiveConnectionTraces

@Suite("Schedule shrinking")
struct ScheduleShrinkerTests {
    /// Fails iff a reset is followed, later in the schedule, by a freeze.
    static func resetThenFreeze(_ schedule: [ScheduledAction]) -> Bool {
        guard let reset = schedule.firstIndex(where: { $0.action == .resetConnection }) else { return false }
        return schedule[(reset + 1)...].contains { $0.action == .freeze }
    }

    /// A generated schedule with no reset or freeze, plus one reset and one later freeze planted in it.
    static func plantedSchedule(seed: UInt64) -> [ScheduledAction] {
        var arbitrary = ArbitraryTraces(seed: seed)
        var schedule = arbitrary.schedule(maximumLength: 60).filter {
            $0.action != .resetConnection && $0.action != .freeze
        }
        let resetIndex = arbitrary.int(0...schedule.count)
        schedule.insert(
            ScheduledAction(
                at: schedule.indices.contains(resetIndex) ? schedule[resetIndex].at : .seconds(999), .resetConnection),
            at: resetIndex)
        let freezeIndex = arbitrary.int(resetIndex + 1...schedule.count)
        let freezeTime =
            schedule.indices.contains(freezeIndex) ? schedule[freezeIndex].at : schedule[freezeIndex - 1].at
        schedule.insert(ScheduledAction(at: freezeTime, .freeze), at: freezeIndex)
        return schedule
    }

    @Test("a reset followed by a freeze shrinks to exactly those two actions", arguments: 0..<60 as Range<UInt64>)
    func shrinksToTheCause(seed: UInt64) {
        let schedule = Self.plantedSchedule(seed: seed)
        #expect(Self.resetThenFreeze(schedule))
        let result = ScheduleShrinker().shrink(schedule, stillFails: Self.resetThenFreeze)
        #expect(result.schedule.map(\.action) == [.resetConnection, .freeze], "from \(schedule.count) actions")
        #expect(!result.budgetExhausted)
        // Times are simplified too: the reset moves to 0, the freeze to the reset's time.
        #expect(result.schedule.map(\.at) == [.zero, .zero])
        #expect(Self.resetThenFreeze(result.schedule))
    }

    @Test("the result is 1-minimal: removing any single action makes it pass", arguments: 0..<30 as Range<UInt64>)
    func oneMinimal(seed: UInt64) {
        var arbitrary = ArbitraryTraces(seed: seed &+ 1000)
        let schedule = arbitrary.schedule(maximumLength: 50)
        // Fails iff at least three distinct verbs from a fixed set occur: many minimal answers.
        let verbs: Set<String> = ["reset", "freeze", "subscribe", "send", "background", "connect"]
        func fails(_ candidate: [ScheduledAction]) -> Bool {
            Set(candidate.map { String($0.action.traceWords.split(separator: " ")[0]) }).intersection(verbs).count >= 3
        }
        guard fails(schedule) else { return }
        let result = ScheduleShrinker().shrink(schedule, stillFails: fails)
        #expect(result.schedule.count == 3)
        for index in result.schedule.indices {
            var smaller = result.schedule
            smaller.remove(at: index)
            #expect(!fails(smaller))
        }
    }

    @Test("arguments shrink: reasons and texts shorten, latencies drop to zero")
    func argumentsSimplify() {
        let schedule = [
            ScheduledAction(at: .milliseconds(1234), .closeConnection(code: .tokenExpired, reason: "token expired")),
            ScheduledAction(at: .milliseconds(2345), .setLatency(.milliseconds(740))),
            ScheduledAction(at: .milliseconds(3456), .broadcast(topic: "loans", text: "a long message")),
        ]
        // Fails iff a 4001 close comes before a broadcast on "loans", with any latency at all present.
        func fails(_ candidate: [ScheduledAction]) -> Bool {
            guard
                let close = candidate.firstIndex(where: {
                    if case .closeConnection(4001, _) = $0.action { true } else { false }
                }),
                candidate.contains(where: { if case .setLatency = $0.action { true } else { false } })
            else { return false }
            return candidate[close...].contains { if case .broadcast("loans", _) = $0.action { true } else { false } }
        }
        let result = ScheduleShrinker().shrink(schedule, stillFails: fails)
        #expect(
            result.schedule.map(\.traceLine) == [
                "0ms close code=4001 reason=\"\"", "0ms latency 0ms", "0ms broadcast topic=loans text=m",
            ])
    }

    @Test("a schedule whose timing matters keeps its times")
    func timingKept() {
        let schedule = [
            ScheduledAction(at: .milliseconds(300), .resetConnection),
            ScheduledAction(at: .milliseconds(2700), .freeze),
        ]
        // Fails only if the freeze comes at least 2 s after the reset.
        func fails(_ candidate: [ScheduledAction]) -> Bool {
            guard let reset = candidate.first(where: { $0.action == .resetConnection }),
                let freeze = candidate.first(where: { $0.action == .freeze })
            else { return false }
            return freeze.at - reset.at >= .seconds(2)
        }
        let result = ScheduleShrinker().shrink(schedule, stillFails: fails)
        #expect(result.schedule.map(\.traceLine) == ["0ms reset", "2000ms freeze"])
    }

    @Test("the budget bounds the number of runs, and no candidate is run twice")
    func budget() {
        let schedule = Self.plantedSchedule(seed: 3)
        var seen: [[ScheduledAction]] = []
        let result = ScheduleShrinker(maximumAttempts: 7).shrink(schedule) { candidate in
            seen.append(candidate)
            return Self.resetThenFreeze(candidate)
        }
        #expect(result.attempts == 7 && seen.count == 7)
        #expect(result.budgetExhausted)
        #expect(Set(seen).count == seen.count)
        #expect(Self.resetThenFreeze(result.schedule))
    }

    @Test("a schedule that does not fail is returned unchanged after one run")
    func notFailing() {
        let schedule = [ScheduledAction(at: .zero, .freeze)]
        let result = ScheduleShrinker().shrink(schedule, stillFails: Self.resetThenFreeze)
        #expect(result.schedule == schedule && result.attempts == 1)
    }

    @Test("errors from the predicate propagate with their type")
    func typedErrors() {
        struct RunCrashed: Error {}
        #expect(throws: RunCrashed.self) {
            try ScheduleShrinker().shrink([ScheduledAction(at: .zero, .freeze)]) { (_) throws(RunCrashed) in
                throw RunCrashed()
            }
        }
    }

    @Test("chunks cover every index once, in order", arguments: [(1, 2), (5, 2), (7, 3), (10, 10), (3, 8)])
    func split(count: Int, parts: Int) {
        let chunks = DeltaDebugging<Int>.split(count, into: parts)
        #expect(chunks.flatMap { Array($0) } == Array(0..<count))
        #expect(chunks.allSatisfy { !$0.isEmpty })
    }
}
