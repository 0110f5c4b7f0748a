import Foundation
public import LiveConnectionSimulator

/// The trace `LIVESIM_TRACE` names: the run a test re-runs instead of its own seeds.
///
/// ```swift
/// // LIVESIM_TRACE=.livesim/traces/ChatTests.showsEveryMessageOnce-seed37.trace swift test --filter 'ChatTests/showsEveryMessageOnce'
/// try Seeds.range(0..<100)        // [37]: the trace's seed
/// try simulate(seed: 37) { … }    // the trace's strategy, and only the perform calls it kept
/// ```
///
/// A test's trace (one with a `test:` line, as the `.simulation` trait writes them, shrunk
/// or not) can only be replayed by the test's own code: the schedule is what the test
/// performed, not something the simulator could perform by itself. So the replay runs
/// the test again with the trace's seed and scheduling strategy, and, for a shrunk trace,
/// skips the same `perform` calls the shrinker skipped (`kept-performs:`). The run prints
/// its timeline, and if it performed other actions than the trace records (the test's
/// code changed since), an issue says where they part.
public struct PinnedTrace: Sendable {
    /// The environment variable that names the trace file.
    public static let environmentVariable = "LIVESIM_TRACE"

    /// The path as given.
    public let path: String
    public let trace: Trace

    /// The trace `LIVESIM_TRACE` names in `environment`, if it is set.
    ///
    /// - Throws: ``SeedsError/unreadableTrace(_:_:)`` for a file that cannot be read or
    ///   parsed, ``SeedsError/notATestTrace(_:)`` for a trace no test produced (livesim
    ///   replays those): running every seed instead would hide the mistake.
    public static func pinned(in environment: [String: String]) throws(SeedsError) -> PinnedTrace? {
        guard let path = environment[environmentVariable] else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .unreadableTrace(path, "no such file, or it cannot be read")
        }
        let trace: Trace
        do {
            trace = try Trace(parsing: String(decoding: data, as: UTF8.self))
        } catch {
            throw .unreadableTrace(path, "line \(error.line): \(error.message)")
        }
        guard trace.test != nil else { throw .notATestTrace(path) }
        return PinnedTrace(path: path, trace: trace)
    }

    /// The pinned trace of this process (read once: the environment does not change).
    static let current: Result<PinnedTrace?, SeedsError> = Result { () throws(SeedsError) in
        try pinned(in: ProcessInfo.processInfo.environment)
    }

    /// The pinned trace if it is the run of `test` with `seed`.
    static func replaying(test: String?, seed: UInt64) throws(SeedsError) -> PinnedTrace? {
        guard let pinned = try current.get(), let test, pinned.trace.test == test,
            pinned.trace.scenario.seed == seed
        else { return nil }
        return pinned
    }

    /// Where the run parts from the trace, if it does: the first action (and its time)
    /// that differs, or a difference in length.
    func divergence(from run: Trace) -> String? {
        let recorded = trace.scenario.schedule
        let now = run.scenario.schedule
        for (index, pair) in zip(recorded, now).enumerated() where pair.0 != pair.1 {
            return "action \(index + 1) is '\(pair.1.traceLine)' in this run, '\(pair.0.traceLine)' in the trace"
        }
        guard recorded.count != now.count else { return nil }
        return "this run performed \(now.count) actions, the trace has \(recorded.count)"
    }
}
