import BenchmarkSupport
import LiveConnectionSimulator

import typealias LiveConnection.Mutex

// The runtime's own cost per executor job, by the kinds of job a simulation runs, each
// measured on a bare workload that does nothing else: no manager, no network, no monitor.
// Under a task-executor preference the runtime never switches isolation inline: a hop onto
// an actor and the hop back are a job each (swift_task_switch only runs the new isolation
// on the current thread when no task executor is set; stdlib/public/Concurrency/Actor.cpp).
// So these are what a simulation's jobs cost before any of our code runs in them, and
// `jobs per simulated hour × cost` is the floor of its CPU time per simulated hour.

/// One kind of job, and the bare workload whose jobs are (nearly) all of that kind.
struct JobKindCost {
    let kind: String
    let workload: String
    let nanosecondsPerJob: Double
}

/// An actor whose one method does almost nothing: calling it from a task is a hop on and a hop back.
private actor BareActor {
    var count = 0
    func bump() { count += 1 }
}

/// A one-slot hand-off: `post` resumes the waiter (a job) or leaves a permit for the next `wait`.
private final class Baton: Sendable {
    private let state = Mutex<(permits: Int, waiter: UnsafeContinuation<Void, Never>?)>((0, nil))

    func post() {
        let waiter = state.withLock { state -> UnsafeContinuation<Void, Never>? in
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.permits += 1
            return nil
        }
        waiter?.resume()
    }

    func wait() async {
        await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.permits > 0 {
                    state.permits -= 1
                    return true
                }
                state.waiter = continuation
                return false
            }
            if now { continuation.resume() }
        }
    }
}

/// CPU nanoseconds per job of `body` run on a `BareJobQueue` under its preference, best of 5.
func bareCost(_ body: @escaping @Sendable () async -> Void) -> Double {
    var best = Double.infinity
    for _ in 0..<5 {
        let queue = BareJobQueue()
        let before = cpuSeconds()
        let root = Task(executorPreference: queue) { await body() }
        queue.drain()
        _ = root
        best = min(best, (cpuSeconds() - before) / Double(max(1, queue.jobsRun)) * 1e9)
    }
    return best
}

/// The four kinds measured on the bare queue, and the clock's wake-up on the simulation's own kernel.
func runtimeCostsPerJobKind() -> [JobKindCost] {
    // Each task its own actor, as the manager's actor is seldom busy when a task hops on (a
    // hundred tasks queued on one actor measured the actor's queue instead: 28 µs a job).
    let hops = bareCost {
        await withDiscardingTaskGroup { group in
            for _ in 0..<100 {
                group.addTask {
                    let actor = BareActor()
                    for _ in 0..<1000 { await actor.bump() }
                }
            }
        }
    }
    let wakes = bareCost {
        let (ping, pong) = (Baton(), Baton())
        await withDiscardingTaskGroup { group in
            group.addTask { for _ in 0..<100_000 { await ping.wait(); pong.post() } }
            group.addTask { for _ in 0..<100_000 { ping.post(); await pong.wait() } }
        }
    }
    // Small groups, as the shell's are (one group of 100,000 children measured the group).
    let starts = bareCost {
        for _ in 0..<10_000 {
            await withDiscardingTaskGroup { group in
                for _ in 0..<10 { group.addTask {} }
            }
        }
    }
    var clockBest = Double.infinity
    for _ in 0..<5 {
        let clock = VirtualClock()
        let executor = SimulationExecutor()
        let before = cpuSeconds()
        let result = Simulation.run(clock: clock, executor: executor) {
            await withDiscardingTaskGroup { group in
                for task in 0..<100 {
                    group.addTask {
                        for _ in 0..<1000 { try? await clock.sleep(for: .milliseconds(1 + task % 7)) }
                    }
                }
            }
        }
        clockBest = min(clockBest, (cpuSeconds() - before) / Double(max(1, result.jobsRun)) * 1e9)
    }
    return [
        JobKindCost(
            kind: "continuation wake-up", workload: "two tasks handing a baton back and forth, 100,000 times each",
            nanosecondsPerJob: wakes),
        JobKindCost(
            kind: "actor turn + hop back",
            workload: "100 tasks × 1,000 calls of an empty method of each task's own actor",
            nanosecondsPerJob: hops),
        JobKindCost(
            kind: "task start", workload: "10,000 discarding groups of 10 empty children", nanosecondsPerJob: starts),
        JobKindCost(
            kind: "clock wake-up (SimulationExecutor + VirtualClock)",
            workload: "100 tasks × 1,000 sleeps, the driver jumping time", nanosecondsPerJob: clockBest),
    ]
}
