import Foundation

/// CPU time a process has used so far, summed over its threads (`/proc/PID/task/*/schedstat`,
/// nanoseconds on a CPU): how the cost of a round trip splits between client and server.
///
/// ```swift
/// let before = CPUTime.of(server.processIdentifier)
/// …                                               // round trips
/// let perRoundTrip = (CPUTime.of(server.processIdentifier) - before) / rounds
/// ```
///
/// Wall-clock rates on a shared machine move with everyone's load; the CPU a round trip
/// costs each side moves much less, so it says which side a remaining gap is on. A thread
/// that has exited is no longer counted (the server's and our pool threads live throughout).
enum CPUTime {
    static func of(_ pid: Int32) -> Duration {
        let tasks = "/proc/\(pid)/task"
        guard let threads = try? FileManager.default.contentsOfDirectory(atPath: tasks) else { return .zero }
        var nanoseconds: Int64 = 0
        for thread in threads {
            guard let text = try? String(contentsOfFile: "\(tasks)/\(thread)/schedstat", encoding: .utf8),
                let first = text.split(separator: " ").first, let value = Int64(first)
            else { continue }
            nanoseconds += value
        }
        return .nanoseconds(nanoseconds)
    }

    /// This process.
    static var own: Duration { of(ProcessInfo.processInfo.processIdentifier) }

    /// Microseconds per round trip.
    static func microseconds(_ duration: Duration, per rounds: Int) -> Double {
        seconds(duration) * 1e6 / Double(rounds)
    }
}
