public import LiveConnectionSimulator

import typealias LiveConnection.Mutex

/// The simulations one test case ran, so that a failure can name their seeds and attach
/// their traces.
///
/// ```swift
/// // Installed by the `.simulation` trait; `simulate(seed:)` registers with it:
/// SimulationRecorder.current?.register(seed: 37, trace: trace)
/// ```
public final class SimulationRecorder: Sendable {
    /// One finished simulation.
    public struct Entry: Hashable, Sendable {
        public var seed: UInt64
        public var trace: Trace
        /// The numbers of the `perform` calls that ran (what shrinking may take away).
        var performed: [Int] = []
    }

    /// The recorder of the test case running in this task, if the `.simulation` trait installed one.
    @TaskLocal public static var current: SimulationRecorder?

    private let storage = Mutex<[Entry]>([])

    public init() {}

    /// Records a simulation run by the current test case.
    public func register(seed: UInt64, trace: Trace) {
        register(seed: seed, trace: trace, performed: [])
    }

    /// Records a simulation with the numbers of its `perform` calls that ran.
    func register(seed: UInt64, trace: Trace, performed: [Int]) {
        storage.withLock { $0.append(Entry(seed: seed, trace: trace, performed: performed)) }
    }

    /// Every simulation registered so far, in the order they finished.
    public var entries: [Entry] { storage.withLock { $0 } }
}
