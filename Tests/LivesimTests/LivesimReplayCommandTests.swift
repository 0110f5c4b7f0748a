import Foundation
import LiveConnection
import LiveConnectionSimulator
import TestScheduling
import Testing

/// `livesim replay` and `livesim shrink` as a user runs them.
@Suite("livesim replay and shrink", .waitsOnPeers, .timeLimit(.minutes(5)))
struct LivesimReplayCommandTests {

    @Test("replaying a committed trace reproduces its expectation and exits 0")
    func replayCommitted() throws {
        let library = try #require(TraceLibrary.package())
        let file = try #require(try library.files().first)
        let result = try LivesimProcess.run(["replay", file.path, "--quiet"])
        #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
        #expect(result.standardOutput.contains(": reproduced"))
    }

    @Test("replay --write saves the run; replaying that file again gives identical bytes")
    func replayWriteIsDeterministic() throws {
        let first = try LivesimTraceCommandTests.file("", named: "first.trace")
        let second = try LivesimTraceCommandTests.file("", named: "second.trace")
        let seeded = try LivesimProcess.run([
            "replay", "--seed", "4", "--duration", "2m", "--quiet", "--write", first, "--overwrite",
        ])
        #expect(seeded.status == 0, "\(seeded.standardOutput)\(seeded.standardError)")
        let again = try LivesimProcess.run(["replay", first, "--quiet", "--write", second, "--overwrite"])
        #expect(again.status == 0)
        let diff = try LivesimProcess.run(["diff", first, second])
        #expect(diff.status == 0, "\(diff.standardOutput)")
    }

    @Test("replay --svg draws the run's timeline: the manager's lane, its phases, the actions")
    func replaySVG() throws {
        let picture = try LivesimTraceCommandTests.file("", named: "run.svg")
        let result = try LivesimProcess.run([
            "replay", "--seed", "4", "--duration", "2m", "--quiet", "--svg", picture,
        ])
        #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
        #expect(result.standardOutput.contains("wrote \(picture)"))
        let svg = try String(contentsOfFile: picture, encoding: .utf8)
        #expect(svg.hasPrefix("<svg") && svg.hasSuffix("</svg>\n"))
        #expect(svg.contains(">manager</text>") && svg.contains(" open attempt=1</title>"))
        #expect(svg.contains("<path d=\"M"), "the scenario's actions are drawn as marks")
    }

    @Test("a malformed trace stops replay with path:line and exit 1")
    func replayMalformed() throws {
        let text = LivesimTraceCommandTests.sample().encode()
            .replacingOccurrences(of: "resume: true", with: "resume: yes")
        let line = try LivesimTraceCommandTests.number(of: "resume: yes", in: text)
        let bad = try LivesimTraceCommandTests.file(text, named: "bad.trace")
        let result = try LivesimProcess.run(["replay", bad])
        #expect(result.status == 1)
        #expect(
            result.standardError.hasPrefix("livesim replay: \(bad):\(line): 'yes' is not resume"),
            "\(result.standardError)")
    }

    @Test("an unknown variant on the command line is a usage error naming the known ones")
    func unknownVariant() throws {
        let result = try LivesimProcess.run(["replay", "--seed", "1", "--variant", "nope"])
        #expect(result.status == 64)
        #expect(
            result.standardError.contains("invalid --variant 'nope': expected one of correct,"),
            "\(result.standardError)")
    }

    @Test("shrink finds a planted bug, writes a small trace that replay reproduces")
    func shrink() throws {
        let directory = try ScratchDirectory.fresh("shrink").path
        let result = try LivesimProcess.run([
            "shrink", "--seeds", "0..<20", "--variant", "skips-resubscribe", "--duration", "10m", "--out", directory,
        ])
        #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
        let files = try TraceLibrary(directory: URL(fileURLWithPath: directory)).files()
        let file = try #require(files.first)
        #expect(file.lastPathComponent.hasPrefix("resubscribe-before-open-seed"))
        let trace = try Trace(parsing: try String(contentsOf: file, encoding: .utf8))
        #expect(trace.scenario.schedule.count <= 10)
        let replay = try LivesimProcess.run(["replay", file.path, "--quiet"])
        #expect(replay.status == 0)
    }

    @Test("explore shrinks its first failure into the traces directory and prints the replay line")
    func exploreWritesShrunkTrace() throws {
        // The exploration `LivesimExploreCommandTests.shardsMergeLikeOneRun` holds its shards to
        // (run once for both); its shards write their own traces into the same directory, so
        // the file is the one the replay line names, and it must be in the traces directory.
        let run = try PlantedExploration.ignoresGenerations.get()
        let directory = run.directory.path
        let result = run.output
        #expect(result.status == 1)
        let prefix = "replay: swift run livesim replay \(directory)/"
        let line = try #require(
            result.standardOutput.split(separator: "\n").first { $0.contains(prefix) }, "\(result.standardOutput)")
        let range = try #require(line.range(of: prefix))
        let name = String(line[range.upperBound...])
        let files = try TraceLibrary(directory: URL(fileURLWithPath: directory)).files()
        let file = try #require(files.first { $0.lastPathComponent == name }, "\(name) not in \(files)")
        let trace = try Trace(parsing: try String(contentsOf: file, encoding: .utf8))
        #expect(trace.variant == "ignores-generations")
        #expect(trace.scenario.schedule.count <= 10, "\(trace.encode())")
    }
}
