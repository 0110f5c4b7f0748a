import Foundation
import TestScheduling
import Testing

/// ``Process/waitForExit(within:grace:)`` reads the end from the kernel, and keeps its deadline.
@Suite("A child's exit, from the kernel", .waitsOnPeers, .timeLimit(.minutes(1)))
struct ChildExitTests {
    static func shell(_ script: String) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        try process.runGated()
        return process
    }

    @Test("an exit code is an exit code")
    func exitCode() throws {
        let exit = try Self.shell("exit 3").waitForExit(within: .seconds(30))
        #expect(exit == ChildExit(status: 3, signalled: false, timedOut: false))
        #expect(!exit.succeeded)
        #expect(try Self.shell("exit 0").waitForExit(within: .seconds(30)).succeeded)
    }

    @Test("past the deadline the child is terminated, and killed after the grace if that did not end it")
    func deadline() throws {
        let start = ContinuousClock.now
        let stopped = try Self.shell("exec sleep 30").waitForExit(within: .milliseconds(200), grace: .milliseconds(200))
        #expect(stopped.timedOut && stopped.signalled && [SIGTERM, SIGKILL].contains(stopped.status), "\(stopped)")
        let killed = try Self.shell("trap '' TERM; while :; do sleep 0.05; done").waitForExit(
            within: .milliseconds(200), grace: .milliseconds(200))
        #expect(killed == ChildExit(status: SIGKILL, signalled: true, timedOut: true))
        #expect(start.duration(to: .now) < .seconds(20), "the sleep did not run its 30 s, nor the loop forever")
    }

    @Test("output is captured from both pipes while the deadline is kept")
    func captures() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "echo out; echo err >&2; exit 2"]
        let run = try process.runCapturing(within: .seconds(30))
        #expect(run.exit.status == 2)
        #expect(String(decoding: run.standardOutput, as: UTF8.self) == "out\n")
        #expect(String(decoding: run.standardError, as: UTF8.self) == "err\n")
        #expect(run.drained)
    }
}
