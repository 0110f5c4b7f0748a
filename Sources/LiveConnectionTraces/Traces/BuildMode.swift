/// Whether this code was compiled with optimizations, as a trace records it.
///
/// ```swift
/// BuildMode.current.description   // "debug" under `swift test`, "release" under `-c release`
/// ```
///
/// The simulator is deterministic within one build, not across builds: the optimizer
/// inlines async functions, so an optimized shell enqueues fewer executor jobs, and a
/// seeded random interleaving picks among different ready queues. A trace therefore says
/// which build produced its observed section, and a replay in the other build follows
/// the recorded machine inputs instead of the recorded seed (see `Trace.replay(interleavings:)`).
public enum BuildMode: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    case debug
    case release

    /// The mode this module was compiled in.
    public static var current: BuildMode {
        #if DEBUG
            .debug
        #else
            .release
        #endif
    }

    public var description: String { rawValue }
}
