public import Foundation

/// How a child process ended, as the kernel reports it.
public struct ChildExit: Sendable, Equatable, CustomStringConvertible {
    /// Its exit code, or the number of the signal that ended it.
    public let status: Int32
    /// True when a signal ended it (`status` is the signal's number).
    public let signalled: Bool
    /// True when it outlived the deadline and was terminated.
    public let timedOut: Bool

    public init(status: Int32, signalled: Bool, timedOut: Bool) {
        self.status = status
        self.signalled = signalled
        self.timedOut = timedOut
    }

    /// True for a clean exit with status 0 before the deadline.
    public var succeeded: Bool { status == 0 && !signalled && !timedOut }

    public var description: String {
        (signalled ? "killed by signal \(status)" : "exited \(status)") + (timedOut ? " after its deadline" : "")
    }
}

extension Process {
    /// Waits until the child ends, asking the kernel (`waitpid`), and returns how it ended.
    /// Past `timeout` it is terminated: SIGTERM, then SIGKILL after `grace`.
    ///
    /// Why not `waitUntilExit()`: on Linux, Foundation learns of a child's exit from the end of
    /// a socket the child inherits, and its spawn closes the descriptors that were open when it
    /// looked, not those another thread opened a moment later. A child started at the same
    /// moment can inherit the first one's socket, and then the first one's exit goes unnoticed
    /// for as long as the second runs. The clean-clone CI of session 11 hung that way: the
    /// test run had finished, but `PeerServer.stop()` spun in `waitUntilExit()` for ten minutes
    /// on a server it had killed (a zombie nobody reaped), because the shared echo server,
    /// started in the same second, held its socket and lives as long as the tests.
    ///
    /// SIGTERM alone may not do: a child inherits the signal mask of the thread that started
    /// it, and threads that Dispatch's workers start (ours among them) block it.
    ///
    /// Once this has returned, read the exit from its result only: Foundation may never learn
    /// of it (`isRunning` can stay true, `terminationStatus` can be wrong).
    public func waitForExit(within timeout: Duration, grace: Duration = .seconds(5)) -> ChildExit {
        let pid = processIdentifier
        let clock = ContinuousClock()
        let terminateAt = clock.now + timeout
        var killAt: ContinuousClock.Instant?
        var timedOut = false
        while true {
            var status: Int32 = 0
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid {
                let signal = status & 0x7f
                return signal == 0
                    ? ChildExit(status: (status >> 8) & 0xff, signalled: false, timedOut: timedOut)
                    : ChildExit(status: signal, signalled: true, timedOut: timedOut)
            }
            if reaped == -1 && errno == ECHILD { return exitFoundationReaped(timedOut: timedOut) }
            let now = clock.now
            if !timedOut, now >= terminateAt {
                timedOut = true
                kill(pid, SIGTERM)
                killAt = now + grace
            } else if let due = killAt, now >= due {
                kill(pid, SIGKILL)
                killAt = nil
            }
            usleep(2_000)
        }
    }

    /// Foundation's monitor reaped the child before we asked: its record is the only one left.
    private func exitFoundationReaped(timedOut: Bool) -> ChildExit {
        let end = Date().addingTimeInterval(5)
        while isRunning && Date() < end { usleep(1_000) }
        return ChildExit(
            status: isRunning ? -1 : terminationStatus, signalled: !isRunning && terminationReason == .uncaughtSignal,
            timedOut: timedOut)
    }
}
