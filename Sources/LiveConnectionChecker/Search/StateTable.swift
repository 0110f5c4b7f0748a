/// The breadth-first visited set: an open-addressing hash table of indices into the
/// state array, so a state is stored once (in the array, next to its parent pointer)
/// and the table costs 4 bytes a slot.
///
/// ```swift
/// var table = StateTable(capacity: 1024)
/// if table.find(state, hash: h, in: states) == nil { table.insert(index: states.count, hash: h); states.append(state) }
/// ```
///
/// Linear probing, load factor at most 3/4, capacity a power of two. Slot value 0 means
/// empty, otherwise index + 1. Lookups only read, so worker threads may probe a table
/// concurrently while no one inserts (the breadth-first search's expansion phase).
struct StateTable: Sendable {
    private(set) var slots: [UInt32]
    private(set) var count = 0
    private var mask: Int

    init(capacity: Int) {
        var size = 16
        while size * 3 / 4 < capacity { size *= 2 }
        slots = Array(repeating: 0, count: size)
        mask = size - 1
    }

    var bytes: Int { slots.count * MemoryLayout<UInt32>.stride }

    /// The index of the stored state equal to `state`, if any.
    func find<State: Equatable>(_ state: State, hash: UInt64, in states: [State]) -> Int? {
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let value = slots[slot]
            if value == 0 { return nil }
            let index = Int(value) - 1
            if states[index] == state { return index }
            slot = (slot + 1) & mask
        }
    }

    /// Records that `states[index]` (whose hash is `hash`) is stored; the caller checked
    /// it was absent. `rehash` gives the hash of a stored index when the table grows.
    mutating func insert(index: Int, hash: UInt64, rehash: (Int) -> UInt64) {
        precondition(index < Int(UInt32.max), "state table full: \(index) states")
        if (count + 1) * 4 > slots.count * 3 { grow(rehash: rehash) }
        var slot = Int(truncatingIfNeeded: hash) & mask
        while slots[slot] != 0 { slot = (slot + 1) & mask }
        slots[slot] = UInt32(index + 1)
        count += 1
    }

    private mutating func grow(rehash: (Int) -> UInt64) {
        let old = slots
        slots = Array(repeating: 0, count: old.count * 2)
        mask = slots.count - 1
        for value in old where value != 0 {
            var slot = Int(truncatingIfNeeded: rehash(Int(value) - 1)) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = value
        }
    }
}

/// The depth-first visited set: 64-bit fingerprints only (hash compaction), with the
/// shallowest depth each was reached at, so a state first met deep under a depth bound
/// is explored again when a shorter path reaches it.
///
/// Two distinct states with the same fingerprint are confused, and the second is never
/// explored: with n states the chance of any such collision is about n²/2⁶⁵
/// (10⁷ states: 3·10⁻⁶). Breadth-first mode stores full states and has no such risk.
struct FingerprintSet: Sendable {
    private var slots: [UInt64]
    private var depths: [UInt16]
    private(set) var count = 0
    private var mask: Int

    init(capacity: Int) {
        var size = 16
        while size * 3 / 4 < capacity { size *= 2 }
        slots = Array(repeating: 0, count: size)
        depths = Array(repeating: 0, count: size)
        mask = size - 1
    }

    var bytes: Int { slots.count * (MemoryLayout<UInt64>.stride + MemoryLayout<UInt16>.stride) }

    /// Inserts the fingerprint at `depth`; true if it is new or was only seen deeper
    /// (then the state must be explored again).
    mutating func visit(_ fingerprint: UInt64, depth: Int) -> Bool {
        let key = fingerprint == 0 ? 1 : fingerprint  // 0 marks an empty slot
        let level = UInt16(clamping: depth)
        var slot = Int(truncatingIfNeeded: key) & mask
        while slots[slot] != 0 {
            if slots[slot] == key {
                if depths[slot] <= level { return false }
                depths[slot] = level
                return true
            }
            slot = (slot + 1) & mask
        }
        slots[slot] = key
        depths[slot] = level
        count += 1
        if count * 4 > slots.count * 3 { grow() }
        return true
    }

    private mutating func grow() {
        let oldSlots = slots, oldDepths = depths
        slots = Array(repeating: 0, count: oldSlots.count * 2)
        depths = Array(repeating: 0, count: oldSlots.count * 2)
        mask = slots.count - 1
        for (key, level) in zip(oldSlots, oldDepths) where key != 0 {
            var slot = Int(truncatingIfNeeded: key) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = key
            depths[slot] = level
        }
    }
}
