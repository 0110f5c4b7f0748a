import Foundation

import typealias LiveConnection.Mutex

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A command `torture` runs: started in a process group of its own, so that it and every
/// process it starts can be ended together, and never outlives `livesim`.
///
/// ```swift
/// let child = try ChildProcess(["python3", "client.py"], environment: ["LIVESIM_URL": url])
/// … child.exitStatus …          // nil while it runs
/// await child.endGroup(grace: .seconds(2))
/// ```
final class ChildProcess: Sendable {
    /// Its process id, which is also its process group's.
    let pid: pid_t

    /// Starts `command` (looked up in PATH) with the environment plus `environment`; throws a
    /// message naming the command when it cannot be started.
    init(_ command: [String], environment: [String: String]) throws(StartFailure) {
        precondition(!command.isEmpty, "a command line has a program")
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Its own process group (0: the child's pid), so one signal reaches everything it starts.
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        var merged = ProcessInfo.processInfo.environment
        for (key, value) in environment { merged[key] = value }
        let argv = command.map { strdup($0) } + [nil]
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let status = posix_spawnp(&pid, command[0], nil, &attributes, argv, envp)
        guard status == 0 else {
            throw StartFailure(command: command[0], reason: String(cString: strerror(status)))
        }
        self.pid = pid
    }

    /// Its exit status (or 128 + the signal that ended it) once it ended; nil while it runs.
    /// Reaps it: ask again and it keeps the answer.
    var exitStatus: Int32? {
        state.withLock { state in
            if let ended = state { return ended }
            var status: Int32 = 0
            guard waitpid(pid, &status, WNOHANG) == pid else { return nil }
            let code = Self.decode(status)
            state = code
            return code
        }
    }

    private let state = Mutex<Int32?>(nil)
    private let ending = Mutex(false)

    /// True once ``endGroup(grace:)`` began: an exit from then on is ours, not the command's.
    var isBeingEnded: Bool { ending.withLock { $0 } }

    /// Ends the process group: SIGTERM, then SIGKILL to whatever is left after `grace`, and
    /// reaps the child. Returns its exit status.
    @discardableResult
    func endGroup(grace: Duration) async -> Int32 {
        ending.withLock { $0 = true }
        _ = kill(-pid, SIGTERM)
        let deadline = ContinuousClock.now + grace
        while exitStatus == nil, ContinuousClock.now < deadline {
            try? await ContinuousClock().sleep(for: .milliseconds(20))
        }
        // The group's other members may outlive the child: they are killed too.
        _ = kill(-pid, SIGKILL)
        // SIGKILL cannot be caught; a process stuck in the kernel is waited for 5 s at most.
        let killed = ContinuousClock.now + .seconds(5)
        while exitStatus == nil, ContinuousClock.now < killed {
            try? await ContinuousClock().sleep(for: .milliseconds(10))
        }
        return exitStatus ?? 128 + SIGKILL
    }

    private static func decode(_ status: Int32) -> Int32 {
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }

    /// A command that could not be started, in one line.
    struct StartFailure: Error, CustomStringConvertible {
        var command: String
        var reason: String
        var description: String { "cannot start \(command): \(reason)" }
    }
}
