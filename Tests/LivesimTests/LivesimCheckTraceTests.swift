import Foundation
import LiveConnectionSimulator
import TestScheduling
import Testing

/// `livesim check` on a planted bug, as a user runs it: the counterexample lands in a
/// trace file that `livesim replay` reproduces.
@Suite("livesim check writes replayable traces", .waitsOnPeers, .timeLimit(.minutes(5)))
struct LivesimCheckTraceTests {

    @Test("a violation exits 1, writes the trace and says what the shell did; replay reproduces it")
    func checkWritesTrace() throws {
        let directory = try ScratchDirectory.fresh("check").appendingPathComponent("traces")
        let result = try LivesimProcess.run([
            "check", "--variant", "skips-resubscribe", "--topics", "1", "--commands", "0", "--log", "0",
            "--no-eventually", "--traces", directory.path,
        ])
        #expect(result.status == 1, "\(result.standardOutput)\(result.standardError)")
        #expect(result.standardOutput.contains("result: VIOLATION of resubscribe-before-open"))
        #expect(
            result.standardOutput.contains(
                "in the simulator: the shell received the counterexample's 4 inputs in order"),
            "\(result.standardOutput)")
        let file = directory.appendingPathComponent("checker-skips-resubscribe-resubscribe-before-open.trace")
        let trace = try Trace(parsing: try String(contentsOf: file, encoding: .utf8))
        #expect(trace.expectation == .violation("resubscribe-before-open"))

        let replay = try LivesimProcess.run(["replay", file.path, "--quiet"])
        #expect(replay.status == 0, "\(replay.standardOutput)\(replay.standardError)")
        #expect(replay.standardOutput.contains("expected violation resubscribe-before-open: reproduced"))
    }

    @Test("a pass writes nothing and exits 0")
    func passWritesNothing() throws {
        let directory = try ScratchDirectory.fresh("check").appendingPathComponent("traces")
        let result = try LivesimProcess.run([
            "check", "--topics", "0", "--commands", "0", "--log", "0", "--depth", "6", "--traces", directory.path,
        ])
        #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
        #expect(!FileManager.default.fileExists(atPath: directory.path))
    }

    @Test(
        "a bounded search never calls an unreached sometimes a violation: it exits 2 and says so",
        arguments: [["--depth", "3"], ["--max-states", "50"], ["--max-states", "50", "--dfs"]])
    func boundedSearch(bound: [String]) throws {
        let directory = try ScratchDirectory.fresh("check").appendingPathComponent("traces")
        let result = try LivesimProcess.run(
            ["check", "--no-eventually", "--traces", directory.path] + bound)
        #expect(result.status == 2, "\(bound): \(result.standardOutput)\(result.standardError)")
        #expect(!result.standardOutput.contains("VIOLATION"))
        #expect(result.standardOutput.contains("result: no violation; not reached within the bound: "))
        #expect(result.standardOutput.contains("command-in-flight"))
        #expect(!FileManager.default.fileExists(atPath: directory.path))
    }

    @Test("an unknown variant is a usage error that names the known ones")
    func unknownVariant() throws {
        let result = try LivesimProcess.run(["check", "--variant", "nope"])
        #expect(result.status == 64, "\(result.standardError)")
        #expect(result.standardError.contains("invalid --variant 'nope': expected one of"))
        #expect(result.standardError.contains("skips-resubscribe") && result.standardError.contains("double-reconnect"))
    }
}
