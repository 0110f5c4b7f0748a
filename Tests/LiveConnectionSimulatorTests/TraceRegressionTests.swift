import Foundation
import LiveConnection
import LiveConnectionSimulator
import Testing

/// Replays every trace committed to `Traces/` and checks its `expect:` line.
@Suite("Traces/ regression")
struct TraceRegressionTests {
    static let library = TraceLibrary.package()

    /// File names, sorted: the test's arguments (an unreadable directory yields none, and
    /// `committedTracesExist` fails instead).
    static let files: [String] = (try? library?.files().map(\.lastPathComponent)) ?? []

    static func text(of file: String) throws -> String {
        let library = try #require(library)
        return try String(contentsOf: library.directory.appendingPathComponent(file), encoding: .utf8)
    }

    @Test("every committed trace still shows what its expect line says", arguments: files)
    func replays(file: String) throws {
        let trace = try Trace(parsing: try Self.text(of: file))
        let expectation = try #require(trace.expectation, "\(file) has no 'expect:' line: say what it proves")
        let replay = try trace.replay()
        #expect(
            replay.result.satisfies(expectation),
            "\(file): expected \(expectation), got \(replay.result.violations.map(\.description)); \(replay.note ?? "") replay: livesim replay Traces/\(file)"
        )
        // Recorded in this build: the trace's own strategy, nothing re-settled. In the other
        // build (CI runs both), the replay says so.
        #expect((replay.note == nil) == (trace.observedBuild == .current), "\(file): \(replay.note ?? "")")
        if trace.observedBuild == .current { #expect(replay.strategy == trace.scenario.strategy) }
    }

    @Test("every committed trace says which build recorded it", arguments: files)
    func recordsItsBuild(file: String) throws {
        let trace = try Trace(parsing: try Self.text(of: file))
        #expect(
            trace.observedBuild != nil, "\(file): no 'observed-build' line; re-record it with livesim replay --write")
    }

    @Test("the committed traces were recorded in both builds, so each CI run replays some from the other")
    func bothBuildsRecorded() throws {
        // CI runs this suite in debug and in release: with a trace of each build committed,
        // each run takes the cross-build path of Trace.replay (re-settling the executor
        // schedule to the recorded inputs) on at least one trace, in each direction.
        let builds = Set(try Self.files.map { try Trace(parsing: try Self.text(of: $0)).observedBuild })
        #expect(builds == [.debug, .release], "observed builds: \(builds)")
    }

    @Test("every committed trace is in canonical form (written by the encoder, diffable)", arguments: files)
    func canonical(file: String) throws {
        let text = try Self.text(of: file)
        #expect(try Trace(parsing: text).encode() == text)
    }

    @Test(
        "every committed trace is named after what found it, and is at most 10 actions long",
        arguments: files)
    func namedAndSmall(file: String) throws {
        let trace = try Trace(parsing: try Self.text(of: file))
        if case .violation(let invariant) = trace.expectation {
            #expect(Rule.invariant(named: invariant) != nil, "\(file) names an unknown invariant")
            if trace.generator.name == "checker" {
                // `livesim check` names a counterexample after the variant and the model's property.
                #expect(file.hasPrefix("checker-\(trace.variant ?? "correct")-"))
            } else {
                #expect(file == TraceLibrary.fileName(invariant: invariant, seed: trace.scenario.seed))
            }
        }
        #expect(trace.scenario.schedule.count <= 10, "\(file) has \(trace.scenario.schedule.count) actions")
    }

    @Test("the three planted bugs each have a committed counterexample")
    func plantedBugsCovered() throws {
        let traces = try Self.files.map { try Trace(parsing: try Self.text(of: $0)) }
        for variant in ["ignores-generations", "skips-resubscribe", "never-resets-backoff"] {
            #expect(traces.contains { $0.variant == variant }, "no trace in Traces/ for \(variant)")
        }
    }
}
