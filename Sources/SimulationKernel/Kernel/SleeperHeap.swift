/// The parked sleepers of a ``VirtualClock``: a binary min-heap keyed by
/// (deadline, insertion sequence).
///
/// The sequence number breaks ties between equal deadlines in the order the sleeps
/// began, so two timers due at the same instant always wake in the same order. That
/// order is what makes a simulation's log reproducible; a heap keyed by deadline alone
/// would wake ties in whatever order the sift happened to leave them.
struct SleeperHeap {
    struct Entry {
        let deadline: VirtualClock.Instant
        let sequence: UInt64
        let continuation: UnsafeContinuation<Void, any Error>

        func precedes(_ other: Entry) -> Bool {
            (deadline, sequence) < (other.deadline, other.sequence)
        }
    }

    private(set) var entries: [Entry] = []

    var count: Int { entries.count }
    var isEmpty: Bool { entries.isEmpty }
    var first: Entry? { entries.first }

    mutating func insert(_ entry: Entry) {
        entries.append(entry)
        siftUp(from: entries.count - 1)
    }

    mutating func popFirst() -> Entry? {
        guard !entries.isEmpty else { return nil }
        return remove(at: 0)
    }

    /// Removes the sleeper with the given sequence number, if it is still parked.
    ///
    /// A linear search: a simulation has a handful of timers at a time (heartbeat,
    /// connect timeout, backoff, the test's own sleeps), and removal only happens on
    /// cancellation, so an index map would cost more than it saves.
    mutating func remove(sequence: UInt64) -> Entry? {
        guard let index = entries.firstIndex(where: { $0.sequence == sequence }) else { return nil }
        return remove(at: index)
    }

    private mutating func remove(at index: Int) -> Entry {
        let removed = entries[index]
        let last = entries.removeLast()
        if index < entries.count {
            entries[index] = last
            siftDown(from: index)
            siftUp(from: index)
        }
        return removed
    }

    private mutating func siftUp(from start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].precedes(entries[parent]) else { return }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(from start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < entries.count, entries[left].precedes(entries[smallest]) { smallest = left }
            if right < entries.count, entries[right].precedes(entries[smallest]) { smallest = right }
            guard smallest != parent else { return }
            entries.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
