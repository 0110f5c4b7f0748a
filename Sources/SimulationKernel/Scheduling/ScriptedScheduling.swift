/// A ``SchedulingStrategy`` that replays a prefix of choices, then runs jobs in arrival
/// order, and records every real choice point (more than one job ready) it met.
///
/// ```swift
/// let strategy = ScriptedScheduling(prefix: [0, 1])   // at the 2nd choice point, run the 2nd ready job
/// _ = Simulation.run(strategy: strategy, clock: VirtualClock()) { … }
/// strategy.choicePoints   // [(readyCount: 2, choice: 0), (readyCount: 3, choice: 1), …]
/// ```
///
/// Copies share one recorder (the simulation driver copies its strategy), so the
/// explorer reads what the run did from the value it handed in.
public struct ScriptedScheduling: SchedulingStrategy {
    /// One real choice: how many jobs were ready, and which one ran.
    public struct ChoicePoint: Hashable, Sendable {
        public var readyCount: Int
        public var choice: Int

        public init(readyCount: Int, choice: Int) {
            self.readyCount = readyCount
            self.choice = choice
        }
    }

    /// The choices to replay, one per choice point, in order.
    public let prefix: [Int]
    private let recorder = Recorder()

    public init(prefix: [Int] = []) { self.prefix = prefix }

    /// The choice points of the run so far.
    public var choicePoints: [ChoicePoint] { recorder.points }
    /// True if a replayed choice did not exist (the scenario is not deterministic).
    public var diverged: Bool { recorder.diverged }

    public mutating func pick(readyCount: Int) -> Int {
        guard readyCount > 1 else { return 0 }
        let position = recorder.points.count
        var choice = position < prefix.count ? prefix[position] : 0
        if choice >= readyCount {
            recorder.diverged = true
            choice = 0
        }
        recorder.points.append(ChoicePoint(readyCount: readyCount, choice: choice))
        return choice
    }

    private final class Recorder {
        var points: [ChoicePoint] = []
        var diverged = false
    }
}
