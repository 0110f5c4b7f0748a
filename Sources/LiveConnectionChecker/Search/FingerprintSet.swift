/// The depth-first visited set: 64-bit fingerprints only (hash compaction), with the
/// shallowest depth each was reached at, so that under a depth bound a state first met
/// deep is explored again when a shorter path reaches it (without one, depth 0 is
/// recorded for every state and nothing is explored twice).
///
/// Two distinct states with the same fingerprint are confused, and the second is never
/// explored: with n states the chance of any such collision is about n²/2⁶⁵
/// (10⁷ states: 3·10⁻⁶). Breadth-first mode stores full states and has no such risk.
@usableFromInline struct FingerprintSet: Sendable {
    @usableFromInline var slots: [UInt64]
    @usableFromInline var depths: [UInt16]
    @usableFromInline var count = 0
    @usableFromInline var mask: Int

    @inlinable init(capacity: Int) {
        let size = openAddressingSize(forCapacity: capacity)
        slots = Array(repeating: 0, count: size)
        depths = Array(repeating: 0, count: size)
        mask = size - 1
    }

    @inlinable var bytes: Int { slots.count * (MemoryLayout<UInt64>.stride + MemoryLayout<UInt16>.stride) }

    /// Inserts the fingerprint at `depth`; true if it is new or was only seen deeper
    /// (then the state must be explored again).
    @inlinable mutating func visit(_ fingerprint: UInt64, depth: Int) -> Bool {
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

    @inlinable mutating func grow() {
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
@inlinable func openAddressingSize(forCapacity capacity: Int) -> Int {
    var size = 16
    while size * 3 / 4 < capacity { size *= 2 }
    return size
}
