import Foundation
import LiveConnectionTesting
import TestScheduling
import Testing

/// A test that fails on purpose, for the end-to-end test below to run in a child process.
/// Disabled unless the child's environment asks for it.
@Suite(
    "Deliberate failure (run only as a child process)",
    .enabled(if: ProcessInfo.processInfo.environment["LIVESIM_DEMONSTRATE_FAILURE"] == "1"))
struct DeliberateFailureTests {
    @Test(.simulation, arguments: try Seeds.range(0..<3))
    func failsForSeedOne(seed: UInt64) throws {
        let woke = try simulate(seed: seed) { world in
            try await world.clock.sleep(for: .seconds(Int64(seed)))
            world.log("woke")
            return world.now
        }
        #expect(seed != 1, "woke at \(woke)")
    }
}

/// Runs the test binary again, as `swift test` does, and reads what a failing simulation
/// test prints: the replay line, the attachment, and that the replay line re-runs one seed.
@Suite("Failure report, end to end", .waitsOnPeers, .timeLimit(.minutes(5)))
struct FailureReportEndToEndTests {
    struct Child {
        var status: Int32
        var output: String
    }

    static func runChild(seed: String?) throws -> Child {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = ["--testing-library", "swift-testing", "--filter", "DeliberateFailureTests"]
        var environment = ProcessInfo.processInfo.environment
        environment["LIVESIM_DEMONSTRATE_FAILURE"] = "1"
        environment["LIVESIM_SEED"] = seed
        process.environment = environment
        let run = try process.runCapturing(within: .seconds(300), mergingStandardError: true)
        return Child(status: run.exit.status, output: String(decoding: run.standardOutput, as: UTF8.self))
    }

    @Test(
        "a failing seed prints one summary with its replay line and attaches its trace; the line re-runs only that seed and prints its timeline",
        .enabled(
            if: ProcessInfo.processInfo.environment["LIVESIM_DEMONSTRATE_FAILURE"] == nil
                && ProcessInfo.processInfo.environment["LIVESIM_SEED"] == nil
                && CommandLine.arguments[0].hasSuffix(".xctest")))
    func endToEnd() throws {
        let all = try Self.runChild(seed: nil)
        #expect(all.status != 0)
        let replay = "LIVESIM_SEED=1 swift test --filter 'DeliberateFailureTests/failsForSeedOne'"
        #expect(all.output.contains("simulation seed 1 failed; trace attached as seed1.trace"), "\(all.output)")
        #expect(all.output.contains("seed1.trace"), "\(all.output)")
        #expect(!all.output.contains("simulation seed 0 failed") && !all.output.contains("simulation seed 2 failed"))
        // One summary for the test, with the replay line once.
        let summary = "simulation: 1 of 3 seeds failed (1); seed 1 in full; replay: \(replay)"
        #expect(all.output.components(separatedBy: summary).count == 2, "\(all.output)")
        #expect(all.output.components(separatedBy: "simulation: ").count == 2, "\(all.output)")
        #expect(all.output.components(separatedBy: "LIVESIM_SEED=").count == 2, "the replay line once: \(all.output)")
        #expect(!all.output.contains("timeline:"), "only the replay line's run prints its timeline")

        let one = try Self.runChild(seed: "1")
        #expect(one.status != 0)
        #expect(one.output.contains("with 1 test case"), "\(one.output)")
        #expect(one.output.contains("simulation: 1 of 1 seed failed (1); seed 1 in full; replay: \(replay)"))
        // The replayed run prints its timeline: the test's log line at its virtual time.
        #expect(one.output.contains("simulation seed 1 timeline:\n1000ms log woke\n"), "\(one.output)")

        let other = try Self.runChild(seed: "2")
        #expect(other.status == 0, "\(other.output)")
    }
}
