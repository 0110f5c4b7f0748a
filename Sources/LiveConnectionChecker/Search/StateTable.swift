/// The breadth-first visited set: an open-addressing hash table of indices into the
/// state array, so a state is stored once (in the array, next to its parent pointer).
///
/// ```swift
/// var table = StateTable(capacity: 1024)
/// if table.find(state, hash: h, in: states) == nil { table.insert(index: states.count, hash: h) { … }; states.append(state) }
/// ```
///
/// Linear probing, load factor at most 3/4, capacity a power of two. A slot is a 4-byte
/// index (0 empty, otherwise index + 1) plus a 1-byte tag from the hash's top bits: a
/// probe compares the tag first and loads the stored state (a cache miss, far away in
/// the state array) only when the tags agree, 1 time in 256 for a different state.
/// 5 bytes a slot, 6.7–13 bytes a state. Lookups only read, so worker threads may
/// probe concurrently while no one inserts (the breadth-first expansion phase).
struct StateTable: Sendable {
    private(set) var slots: [UInt32]
    private var tags: [UInt8]
    private(set) var count = 0
    private var mask: Int

    init(capacity: Int) {
        let size = openAddressingSize(forCapacity: capacity)
        slots = Array(repeating: 0, count: size)
        tags = Array(repeating: 0, count: size)
        mask = size - 1
    }

    var bytes: Int { slots.count * (MemoryLayout<UInt32>.stride + MemoryLayout<UInt8>.stride) }

    private static func tag(_ hash: UInt64) -> UInt8 { UInt8(truncatingIfNeeded: hash >> 56) }

    /// The index of the stored state equal to `state`, if any.
    func find<State: Equatable>(_ state: State, hash: UInt64, in states: [State]) -> Int? {
        let tag = Self.tag(hash)
        var slot = Int(truncatingIfNeeded: hash) & mask
        return slots.withUnsafeBufferPointer { slots in
            tags.withUnsafeBufferPointer { tags in
                states.withUnsafeBufferPointer { states in
                    while true {
                        let value = slots[slot]
                        if value == 0 { return nil }
                        if tags[slot] == tag {
                            let index = Int(value) - 1
                            if states[index] == state { return index }
                        }
                        slot = (slot + 1) & mask
                    }
                }
            }
        }
    }

    /// Records that `states[index]` (whose hash is `hash`) is stored; the caller checked
    /// it was absent. `rehash` gives the hash of a stored index when the table grows.
    mutating func insert(index: Int, hash: UInt64, rehash: (Int) -> UInt64) {
        precondition(index < Int(UInt32.max), "state table full: \(index) states")
        if (count + 1) * 4 > slots.count * 3 { grow(rehash: rehash) }
        place(UInt32(index + 1), hash: hash)
        count += 1
    }

    private mutating func place(_ value: UInt32, hash: UInt64) {
        var slot = Int(truncatingIfNeeded: hash) & mask
        while slots[slot] != 0 { slot = (slot + 1) & mask }
        slots[slot] = value
        tags[slot] = Self.tag(hash)
    }

    private mutating func grow(rehash: (Int) -> UInt64) {
        let old = slots
        slots = Array(repeating: 0, count: old.count * 2)
        tags = Array(repeating: 0, count: old.count * 2)
        mask = slots.count - 1
        for value in old where value != 0 { place(value, hash: rehash(Int(value) - 1)) }
    }
}

/// The depth-first visited set: 64-bit fingerprints only (hash compaction), with the
/// shallowest depth each was reached at, so that under a depth bound a state first met
/// deep is explored again when a shorter path reaches it (without one, depth 0 is
/// recorded for every state and nothing is explored twice).
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
        let size = openAddressingSize(forCapacity: capacity)
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

/// The smallest power of two, at least 16, whose table holds `capacity` entries at most
/// 3/4 full (both tables probe linearly and mask the hash, so the size must be a power of two).
private func openAddressingSize(forCapacity capacity: Int) -> Int {
    var size = 16
    while size * 3 / 4 < capacity { size *= 2 }
    return size
}
