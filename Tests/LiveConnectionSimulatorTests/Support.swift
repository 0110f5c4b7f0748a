import typealias LiveConnection.Mutex

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An append-only log that tasks on any thread can write to.
final class EventLog: Sendable {
    private let lines = Mutex<[String]>([])

    func record(_ line: String) { lines.withLock { $0.append(line) } }

    var entries: [String] { lines.withLock { $0 } }
}

/// The identity of the thread running the caller, to prove where jobs ran.
func currentThreadID() -> UInt {
    #if canImport(Glibc)
        UInt(pthread_self())
    #else
        UInt(bitPattern: pthread_self())
    #endif
}

/// Thread identities observed by jobs.
final class ThreadLog: Sendable {
    private let seen = Mutex<[(place: String, thread: UInt)]>([])

    func here(_ place: String) {
        let thread = currentThreadID()
        seen.withLock { $0.append((place, thread)) }
    }

    var places: [String] { seen.withLock { $0.map(\.place) } }

    /// Places whose job ran on a thread other than `driver`.
    func placesOff(_ driver: UInt) -> [String] {
        seen.withLock { $0.filter { $0.thread != driver }.map(\.place) }
    }
}

/// A counter actor: every call from another task is an actor hop.
actor Counter {
    private(set) var value = 0

    func increment(by step: Int = 1, log: EventLog? = nil, as name: String = "") -> Int {
        value += step
        log?.record("\(name)\(value)")
        return value
    }
}

/// Two or more workers that interleave through an actor; the log records the order in
/// which their steps reached the actor, so it depends on the schedule.
func interleavingProgram(workers: Int = 3, steps: Int = 4, log: EventLog) async {
    let counter = Counter()
    await withTaskGroup(of: Void.self) { group in
        for worker in 0..<workers {
            group.addTask {
                for step in 0..<steps {
                    _ = await counter.increment(log: log, as: "w\(worker).\(step)→")
                    await Task.yield()
                }
            }
        }
    }
}
