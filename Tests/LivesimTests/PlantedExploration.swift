import Foundation
import TestScheduling

/// One `livesim explore` of the planted ignores-generations bug, eight seeds of five minutes
/// with its first failure shrunk into a scratch traces directory, run once for the tests
/// that read it: `LivesimExploreCommandTests.shardsMergeLikeOneRun` holds its shards to it,
/// and `LivesimReplayCommandTests.exploreWritesShrunkTrace` reads the trace it wrote and the
/// replay line it printed. Each spawned its own exploration and shrink before, the costliest
/// processes of the debug run's `livesim` suites.
enum PlantedExploration {
    struct Run: Sendable {
        /// What the one run printed and its exit status.
        var output: LivesimProcess.Output
        /// Its `--traces` directory; the shards of `shardsMergeLikeOneRun` write there too,
        /// each trace under a name of its own.
        var directory: URL
        /// Its `--report` file.
        var report: String
        /// The arguments the run and each shard share.
        var common: [String]
    }

    struct Failed: Error, Sendable, CustomStringConvertible {
        var description: String
    }

    static let ignoresGenerations: Result<Run, Failed> = {
        do {
            let directory = try ScratchDirectory.fresh("shards")
            let common = [
                "--seeds", "0..<8", "--duration", "5m", "--variant", "ignores-generations", "--traces", directory.path,
            ]
            let report = directory.appendingPathComponent("single.json").path
            let output = try LivesimProcess.run(["explore"] + common + ["--report", report])
            return .success(Run(output: output, directory: directory, report: report, common: common))
        } catch {
            return .failure(Failed(description: "\(error)"))
        }
    }()
}
