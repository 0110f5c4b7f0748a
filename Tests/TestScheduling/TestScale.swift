import Foundation

/// How large an instance an exhaustive test searches: everything in an optimized build, the
/// smallest instance that still shows the mechanism in a debug one.
///
/// Unoptimized, the model checker's search and the simulator run ten to thirty times slower
/// than in release, and at full size the debug `swift test` took 360 s on two cores against
/// issue 15's 60 s. The release suite, which CI runs on every change
/// (`swift test -c release -Xswiftc -enable-testing`, docs/ci.md), searches every world and
/// every seed prefix in full. A debug build runs, where a test says so, a smaller instance
/// of the same proof: the seed known to fail instead of every seed up to it, a world
/// without the inputs the test is not about. Each such test names both sizes at its call
/// of ``pick(full:debug:)``, and `LIVESIM_TEST_SCALE=full` asks a debug run for all of it.
public enum TestScale {
    /// True in an optimized build, or in a debug one run with `LIVESIM_TEST_SCALE=full`.
    public static let isFull: Bool = {
        #if DEBUG
            ProcessInfo.processInfo.environment["LIVESIM_TEST_SCALE"] == "full"
        #else
            true
        #endif
    }()

    /// `full` in a full-scale run, `debug` otherwise.
    public static func pick<Value>(full: Value, debug: Value) -> Value { isFull ? full : debug }
}
