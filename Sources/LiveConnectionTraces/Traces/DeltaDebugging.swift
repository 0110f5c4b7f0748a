/// Zeller and Hildebrandt's ddmin (2002) as a machine that proposes candidates and is told
/// their verdicts: the one delta debugging of the kit, whoever runs the candidates.
///
/// ```swift
/// var search = DeltaDebugging(schedule)
/// while let candidate = search.nextCandidate() {
///     search.record(fails: run(candidate).failsTheSameWay, budgetSpent: false)
/// }
/// print(search.current)      // 1-minimal: removing any one element makes it pass
/// ```
///
/// ``ScheduleShrinker`` drives it with simulator runs, synchronously; the `.simulation`
/// trait of LiveConnectionTesting drives it by re-running a user's async test. Neither
/// could call the other's runner (one is synchronous, the other awaits), so the search
/// itself does no running: it says which subset to try next (halves, then quarters, …,
/// each chunk and then each complement) and moves on from the verdict.
///
/// The caller memoizes and budgets: a candidate it already judged (or cannot afford) is
/// recorded with the known verdict (or as not failing), which is what ddmin does with a
/// spent budget: it takes nothing it has not seen fail.
public struct DeltaDebugging<Element: Hashable & Sendable>: Sendable {
    /// The smallest failing list found so far (the starting list until something smaller fails).
    public private(set) var current: [Element]
    private var granularity = 2
    private var chunks: [Range<Int>] = []
    private var step: Step
    private var budgetSpent = false

    private enum Step: Sendable {
        /// Does the empty list fail already?
        case empty
        /// Trying chunk `index` on its own.
        case chunk(Int)
        /// Trying everything but chunk `index`.
        case complement(Int)
        case finished
    }

    /// A search starting from `elements`, which must fail.
    public init(_ elements: [Element]) {
        current = elements
        step = elements.isEmpty ? .finished : .empty
    }

    /// Whether the search is over: ``current`` is 1-minimal, or the budget ran out.
    public var isFinished: Bool {
        if case .finished = step { return true }
        return false
    }

    /// The next list to try, or nil when the search is over.
    public func nextCandidate() -> [Element]? {
        switch step {
        case .empty: []
        case .chunk(let index): Array(current[chunks[index]])
        case .complement(let index):
            Array(current[..<chunks[index].lowerBound] + current[chunks[index].upperBound...])
        case .finished: nil
        }
    }

    /// The verdict on the candidate ``nextCandidate()`` gave: whether it still fails the
    /// same way. `budgetSpent` ends the search at the end of this round.
    public mutating func record(fails: Bool, budgetSpent spent: Bool) {
        budgetSpent = budgetSpent || spent
        switch step {
        case .empty:
            if fails {
                current = []
                step = .finished
            } else {
                startRound()
            }
        case .chunk(let index):
            if fails {
                current = Array(current[chunks[index]])
                granularity = 2
                endRound(reduced: true)
            } else if index + 1 < chunks.count {
                step = .chunk(index + 1)
            } else if granularity > 2 {
                step = .complement(0)
            } else {
                endRound(reduced: false)
            }
        case .complement(let index):
            if fails {
                current = Array(current[..<chunks[index].lowerBound] + current[chunks[index].upperBound...])
                granularity = max(granularity - 1, 2)
                endRound(reduced: true)
            } else if index + 1 < chunks.count {
                step = .complement(index + 1)
            } else {
                endRound(reduced: false)
            }
        case .finished:
            // A verdict with no candidate asked for: nothing to move on from.
            break
        }
    }

    /// Cuts ``current`` into `granularity` chunks, or ends: a single element is minimal.
    private mutating func startRound() {
        guard current.count >= 2 else {
            step = .finished
            return
        }
        chunks = Self.split(current.count, into: granularity)
        step = .chunk(0)
    }

    /// After a reduction, the next round at the new granularity; after none, a finer one
    /// (done once every element is its own chunk).
    private mutating func endRound(reduced: Bool) {
        if budgetSpent {
            step = .finished
            return
        }
        if !reduced {
            guard granularity < current.count else {
                step = .finished
                return
            }
            granularity = min(granularity * 2, current.count)
        }
        startRound()
    }

    /// `count` indices cut into `parts` contiguous ranges of nearly equal size.
    static func split(_ count: Int, into parts: Int) -> [Range<Int>] {
        let parts = min(parts, count)
        return (0..<parts).map { part in (part * count / parts)..<((part + 1) * count / parts) }
    }
}
