public import Foundation

/// What a child process printed, and how it ended.
public struct ChildRun: Sendable {
    public let exit: ChildExit
    public let standardOutput: Data
    /// Empty when standard error was merged into standard output.
    public let standardError: Data
    /// False when a pipe was still open a while after the child ended, so its output may be
    /// cut short (another child can inherit a pipe's write end: ``Process/waitForExit(within:grace:)``).
    public let drained: Bool
}

extension Process {
    /// Runs the process to its end, at most `timeout` (then SIGTERM, and SIGKILL after
    /// `grace`), capturing what it prints.
    ///
    /// Both pipes are read on threads of their own while this thread keeps the deadline: a
    /// child that prints more than a pipe holds would block on a pipe nobody reads, and a
    /// read to a pipe's end blocks for the child's whole run (on one of Dispatch's workers it
    /// would hold a thread that Swift's tasks share: stop 21's CI). Call it from a test that
    /// carries `.waitsOnPeers`.
    public func runCapturing(
        within timeout: Duration, grace: Duration = .seconds(5), mergingStandardError: Bool = false
    ) throws -> ChildRun {
        let output = Pipe()
        let error = mergingStandardError ? output : Pipe()
        standardOutput = output
        standardError = error
        try runGated()
        let pipes = mergingStandardError ? [output] : [output, error]
        let sinks = pipes.map { _ in Locked(Data()) }
        let readers = DispatchGroup()
        for (pipe, sink) in zip(pipes, sinks) {
            readers.enter()
            Thread {
                while case let chunk = pipe.fileHandleForReading.availableData, !chunk.isEmpty {
                    sink.withLock { $0.append(chunk) }
                }
                readers.leave()
            }.start()
        }
        let exit = waitForExit(within: timeout, grace: grace)
        let drained = readers.wait(timeout: .now() + .seconds(10)) == .success
        return ChildRun(
            exit: exit, standardOutput: sinks[0].value, standardError: mergingStandardError ? Data() : sinks[1].value,
            drained: drained)
    }
}
