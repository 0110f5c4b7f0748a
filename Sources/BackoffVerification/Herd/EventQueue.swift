/// A min-heap of events keyed by (virtual time, insertion sequence).
///
/// ```swift
/// var queue = EventQueue<String>()
/// queue.schedule("b", at: 10)
/// queue.schedule("a", at: 10)    // same time: runs after "b", in insertion order
/// queue.next()                   // (10, "b")
/// ```
///
/// The sequence number breaks ties between events due at the same nanosecond, so the
/// order never depends on the heap's internal layout: the same inputs give the same run.
public struct EventQueue<Event> {
    private var heap: [(time: Int64, sequence: UInt64, event: Event)] = []
    private var sequence: UInt64 = 0

    /// An empty queue.
    public init() {}

    /// True when no event is scheduled.
    public var isEmpty: Bool { heap.isEmpty }
    /// The number of scheduled events.
    public var count: Int { heap.count }

    /// Adds an event due at `time` (nanoseconds of virtual time).
    public mutating func schedule(_ event: Event, at time: Int64) {
        heap.append((time, sequence, event))
        sequence += 1
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard Self.precedes(heap[child], heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the earliest event.
    public mutating func next() -> (time: Int64, event: Event)? {
        guard !heap.isEmpty else { return nil }
        heap.swapAt(0, heap.count - 1)
        let first = heap.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < heap.count && Self.precedes(heap[left], heap[smallest]) { smallest = left }
            if right < heap.count && Self.precedes(heap[right], heap[smallest]) { smallest = right }
            if smallest == parent { break }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
        return (first.time, first.event)
    }

    private static func precedes(
        _ a: (time: Int64, sequence: UInt64, event: Event), _ b: (time: Int64, sequence: UInt64, event: Event)
    ) -> Bool {
        a.time != b.time ? a.time < b.time : a.sequence < b.sequence
    }
}
