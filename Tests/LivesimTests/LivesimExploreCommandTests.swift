import Foundation
import LiveConnectionSimulator
import TestScheduling
import Testing

/// `livesim explore` as a user runs it: the summary, the exit status, bad arguments.
@Suite("livesim explore", .waitsOnPeers, .timeLimit(.minutes(5)))
struct LivesimExploreCommandTests {

    @Test("a clean exploration prints the summary table and exits 0")
    func clean() throws {
        let output = try LivesimProcess.run([
            "explore", "--seeds", "3..<5", "--duration", "2m", "--threads", "2",
        ])
        #expect(output.status == 0, "\(output.standardOutput)\(output.standardError)")
        let text = output.standardOutput
        #expect(text.contains("livesim explore: 2 seeds (3..<5) × 2m, strategy per seed, variant correct, 2 threads"))
        #expect(text.range(of: #"\nruns +2\n"#, options: .regularExpression) != nil, "\(text)")
        #expect(text.contains("faults injected, by kind"))
        for invariant in Rule.invariants {
            #expect(
                text.range(of: "\n  \(invariant.name) +0\n", options: .regularExpression) != nil, "\(invariant.name)")
        }
        #expect(output.standardError.contains("explored 2/2 seeds, 0 failing"))
    }

    @Test("--check-determinism runs every seed twice and reports how many differed")
    func checkDeterminism() throws {
        let output = try LivesimProcess.run([
            "explore", "--seeds", "3..<5", "--duration", "2m", "--threads", "2", "--check-determinism",
        ])
        #expect(output.status == 0, "\(output.standardOutput)\(output.standardError)")
        #expect(output.standardOutput.contains("each seed twice (determinism)"))
        #expect(output.standardOutput.range(of: #"\n  two runs differed +0\n"#, options: .regularExpression) != nil)
    }

    @Test("four shards with --report, joined by livesim merge, print and write what one run does")
    func shardsMergeLikeOneRun() throws {
        // The one run is shared with `LivesimReplayCommandTests.exploreWritesShrunkTrace`.
        let run = try PlantedExploration.ignoresGenerations.get()
        let (directory, common, single, one) = (run.directory, run.common, run.report, run.output)
        #expect(one.status == 1, "\(one.standardOutput)\(one.standardError)")
        var paths: [String] = []
        for index in 0..<4 {
            let path = directory.appendingPathComponent("shard-\(index).json").path
            let run = try LivesimProcess.run(
                ["explore"] + common + ["--shard", "\(index)/4", "--report", path])
            #expect(run.standardOutput.contains("shard \(index)/4 of 0..<8"), "\(run.standardOutput)")
            paths.append(path)
        }
        let mergedPath = directory.appendingPathComponent("merged.json").path
        let merge = try LivesimProcess.run(["merge"] + paths + ["--report", mergedPath])
        #expect(merge.status == 1, "\(merge.standardOutput)\(merge.standardError)")
        let singleReport = try ExplorationReport(decoding: try Data(contentsOf: URL(fileURLWithPath: single)))
        let mergedReport = try ExplorationReport(decoding: try Data(contentsOf: URL(fileURLWithPath: mergedPath)))
        #expect(mergedReport.results == singleReport.results)
        // The printed summary agrees too, from the runs row to the replay lines (wall times aside).
        func results(_ text: String) -> [String] {
            text.split(separator: "\n").map(String.init).filter {
                !$0.hasPrefix("wall time") && !$0.hasPrefix("simulated / wall") && !$0.hasPrefix("seeds per second")
                    && !$0.hasPrefix("livesim ") && !$0.hasPrefix("shrunk seed")
                    && !$0.contains("replay: swift run livesim replay /")
            }
        }
        #expect(results(merge.standardOutput) == results(one.standardOutput))
        #expect(merge.standardOutput.contains("replay: swift run livesim replay --seed"))
    }

    @Test("merge refuses a missing file, a non-report and overlapping shards; explore refuses to overwrite a report")
    func mergeErrors() throws {
        let missing = try LivesimProcess.run(["merge", "/nonexistent/report.json"])
        #expect(missing.status == 1)
        #expect(missing.standardError.contains("cannot read /nonexistent/report.json"), "\(missing.standardError)")
        let none = try LivesimProcess.run(["merge"])
        #expect(none.status == 64)
        let directory = try ScratchDirectory.fresh("merge")
        let notReport = directory.appendingPathComponent("not.json")
        try Data("{}".utf8).write(to: notReport)
        let garbage = try LivesimProcess.run(["merge", notReport.path])
        #expect(garbage.status == 1)
        #expect(garbage.standardError.contains("not an exploration report"), "\(garbage.standardError)")
        let report = directory.appendingPathComponent("a.json").path
        let first = try LivesimProcess.run([
            "explore", "--seeds", "0..<2", "--duration", "1m", "--report", report,
        ])
        #expect(first.status == 0, "\(first.standardError)")
        let again = try LivesimProcess.run([
            "explore", "--seeds", "0..<2", "--duration", "1m", "--report", report,
        ])
        #expect(again.status == 1)
        #expect(again.standardError.contains("already exists"), "\(again.standardError)")
        #expect(!again.standardError.contains("explored"), "refused before exploring")
        let overlap = try LivesimProcess.run(["merge", report, report])
        #expect(overlap.status == 1)
        #expect(overlap.standardError.contains("seed 0 is in more than one report"), "\(overlap.standardError)")
    }

    @Test(
        "malformed options exit 64 with the usage",
        arguments: [
            ["--seeds", "ten"], ["--seeds", "5..<2"], ["--duration", "1 hour"], ["--strategy", "lifo"],
            ["--variant", "nope"], ["--threads", "0"], ["--bogus"], ["--shard", "4/4"], ["--shard", "1/0"],
            ["--shard", "a/b"], ["--seeds", "0..<3", "--shard", "0/4"], ["--report", ""],
        ])
    func malformed(arguments: [String]) throws {
        let output = try LivesimProcess.run(["explore"] + arguments)
        #expect(output.status == 64, "\(arguments): \(output.standardError)")
        #expect(output.standardError.contains("usage: livesim explore"))
    }
}
