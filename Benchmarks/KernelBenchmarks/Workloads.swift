import LiveConnectionSimulator

/// The programs the executors are timed on. Each is plain structured Swift concurrency,
/// so the same code runs under the baseline queue and under the simulation.
enum Workload: CaseIterable {
    /// 100 tasks in a group, each yielding 1,000 times: one job per yield, many ready at once.
    case yieldStorm
    /// Two tasks passing a ball back and forth through two `AsyncStream`s, 50,000 round
    /// trips, each counting the hit on an actor. (Calls to an idle actor switch inline,
    /// without a job, on one thread; the streams force a suspension per pass.)
    case streamPingPong
    /// 50 tasks each sleeping 1,000 times on the virtual clock at different periods:
    /// the clock's heap and wake-ups as well as the executor.
    case timers

    var name: String {
        switch self {
        case .yieldStorm: "yield storm (100 tasks × 1,000 yields)"
        case .streamPingPong: "stream ping-pong + actor (2 tasks × 50,000 round trips)"
        case .timers: "virtual timers (50 tasks × 1,000 sleeps)"
        }
    }

    /// What the figures of this workload mostly measure.
    var note: String {
        switch self {
        case .yieldStorm:
            "The executor itself: a yield is the cheapest job there is, and 100 ready jobs give the strategies real choices. This row is the one the 3.5 M jobs/s target is about."
        case .streamPingPong:
            "Mostly `AsyncStream`'s own locking and continuation machinery, which both executors pay alike; one or two jobs are ready at a time."
        case .timers:
            "Mostly the virtual clock: a sleep parks a continuation in the heap, the driver jumps time and resumes it. The baseline uses the same clock, advanced by hand when its queue is empty."
        }
    }

    func body(clock: VirtualClock) -> @Sendable () async -> Void {
        switch self {
        case .yieldStorm:
            return {
                await withTaskGroup(of: Void.self) { group in
                    for _ in 0..<100 {
                        group.addTask { for _ in 0..<1000 { await Task.yield() } }
                    }
                }
            }
        case .streamPingPong:
            return {
                let table = Table()
                let (toB, intoB) = AsyncStream.makeStream(of: Int.self)
                let (toA, intoA) = AsyncStream.makeStream(of: Int.self)
                await withTaskGroup(of: Void.self) { group in
                    group.addTask {
                        var returns = toA.makeAsyncIterator()
                        for rally in 0..<50_000 {
                            await table.hit(by: 0)
                            intoB.yield(rally)
                            _ = await returns.next()
                        }
                        intoB.finish()
                    }
                    group.addTask {
                        for await rally in toB {
                            await table.hit(by: 1)
                            intoA.yield(rally)
                        }
                        intoA.finish()
                    }
                }
            }
        case .timers:
            return {
                await withTaskGroup(of: Void.self) { group in
                    for sleeper in 0..<50 {
                        group.addTask {
                            for _ in 0..<1000 { try? await clock.sleep(for: .milliseconds(10 + sleeper)) }
                        }
                    }
                }
            }
        }
    }
}

actor Table {
    private var lastPlayer = -1
    private var turns = 0

    func hit(by player: Int) {
        if player != lastPlayer { turns += 1 }
        lastPlayer = player
    }
}
