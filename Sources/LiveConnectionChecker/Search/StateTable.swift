/// The breadth-first visited set: open-addressing hash tables of indices into the state
/// column, so a state is stored once (in the column, next to its parent pointer).
///
/// ```swift
/// let table = StateTable()
/// if table.find(state, hash: h, in: states) == nil {
///     table.shard(of: h).insert(index: states.count, hash: h) { hashOfStoredState($0) }
/// }
/// ```
///
/// The table is split into 16 shards by the hash's top four bits, so the breadth-first
/// merge inserts into different shards on different threads without locks. Each shard
/// probes linearly, at most 3/4 full. A slot is 4 bytes holding the state's index + 1
/// (0 is empty) in its low bits and, in the bits the index does not need, a tag from
/// the hash: a probe loads the far-away state (a cache miss) only when the tags agree.
/// The slot itself is the only other miss of a probe (index and tag share a word).
/// 5.3–10.7 bytes a state.
///
/// Lookups only read, so worker threads may probe concurrently while no one inserts.
@usableFromInline struct StateTable: Sendable {
    @usableFromInline static let shardBits = 4
    @inlinable static var shardCount: Int { 1 << shardBits }

    @usableFromInline let shards: [StateTableShard]

    @inlinable init() { shards = (0..<Self.shardCount).map { _ in StateTableShard() } }

    @inline(__always)
    @inlinable static func shardIndex(_ hash: UInt64) -> Int { Int(truncatingIfNeeded: hash >> UInt64(64 - shardBits)) }

    @inline(__always)
    @inlinable func shard(of hash: UInt64) -> StateTableShard { shards[Self.shardIndex(hash)] }

    /// The index of the stored state equal to `state`, if any.
    @inline(__always)
    @inlinable func find<State: Equatable>(_ state: State, hash: UInt64, in states: ChunkedArray<State>) -> Int? {
        shard(of: hash).find(state, hash: hash, in: states)
    }

    @inlinable var count: Int { shards.reduce(0) { $0 + $1.count } }

    /// A read-only snapshot of every shard's slots, valid until the next insertion:
    /// what the expansion phase probes with (plain values, no class field loads).
    @inlinable var view: [StateTableView] { shards.map(\.view) }

    @inlinable var bytes: Int { shards.reduce(0) { $0 + $1.size * MemoryLayout<UInt32>.stride } }
}

/// One shard of the ``StateTable``: slots of index + 1 and a hash tag in one `UInt32`.
///
/// How many low bits hold the index is the shard's choice (`indexBits`): enough for any
/// index the whole search will hand it before the shard next grows, with one bit to
/// spare; the rest is tag. A shard that meets a bigger index rebuilds itself with more
/// index bits (and a shorter tag).
@usableFromInline final class StateTableShard: @unchecked Sendable {
    @usableFromInline var slots: UnsafeMutablePointer<UInt32>
    @usableFromInline var size: Int
    @usableFromInline var count = 0
    @usableFromInline var mask: Int
    @usableFromInline var indexBits: Int
    @usableFromInline var indexMask: UInt32

    @inlinable init() {
        size = 16
        mask = size - 1
        indexBits = 16
        indexMask = (1 << 16) - 1
        slots = Self.allocate(size)
    }

    deinit { LargePages.deallocate(slots, bytes: size * MemoryLayout<UInt32>.stride) }

    @inlinable static func allocate(_ size: Int) -> UnsafeMutablePointer<UInt32> {
        let slots = LargePages.allocate(bytes: size * MemoryLayout<UInt32>.stride)
            .bindMemory(to: UInt32.self, capacity: size)
        slots.initialize(repeating: 0, count: size)
        return slots
    }

    @inline(__always)
    @inlinable func home(_ hash: UInt64) -> Int { Int(truncatingIfNeeded: hash) & mask }

    /// The hash's bits 26–57 with the index bits cleared: never overlaps the home-slot
    /// bits (below `indexBits`) nor the shard bits (60–63).
    @inline(__always)
    @inlinable func tag(_ hash: UInt64) -> UInt32 { UInt32(truncatingIfNeeded: hash >> 26) & ~indexMask }

    /// The index of the stored state equal to `state`, if any.
    @inline(__always)
    @inlinable func find<State: Equatable>(_ state: State, hash: UInt64, in states: ChunkedArray<State>) -> Int? {
        let tag = tag(hash)
        var slot = home(hash)
        while true {
            let value = slots[slot]
            if value == 0 { return nil }
            if value & ~indexMask == tag {
                let index = Int(value & indexMask) - 1
                if states[index] == state { return index }
            }
            slot = (slot + 1) & mask
        }
    }

    @inlinable var view: StateTableView { StateTableView(slots: slots, mask: mask, indexMask: indexMask) }

    /// The home slot's value: a batch of successors loads theirs first, then touches the
    /// states they point to (``touch(_:hash:in:)``), then runs ``find(_:hash:in:)``, so
    /// that the cache misses of a batch overlap instead of coming one after the other.
    @inline(__always)
    @inlinable func homeValue(_ hash: UInt64) -> UInt32 { slots[home(hash)] }

    /// Loads the first byte of the state a home slot's value points to, if its tag agrees.
    @inline(__always)
    @inlinable func touch<State>(_ value: UInt32, hash: UInt64, in states: ChunkedArray<State>) -> UInt32 {
        guard value != 0, value & ~indexMask == tag(hash) else { return value }
        return UInt32(states.address(Int(value & indexMask) - 1).load(as: UInt8.self))
    }

    /// Records that the state at `index` (whose hash is `hash`) is stored; the caller
    /// checked it was absent. `rehash` gives the hash of a stored index when the shard grows.
    @inlinable func insert(index: Int, hash: UInt64, rehash: (Int) -> UInt64) {
        precondition(index < Int(UInt32.max) - 1, "state table full: \(index) states")
        if (count + 1) * 4 > size * 3 {
            rebuild(size: size * 2, forIndex: index, rehash: rehash)
        } else if UInt32(index + 1) & ~indexMask != 0 {
            rebuild(size: size, forIndex: index, rehash: rehash)
        }
        place(UInt32(index + 1) | tag(hash), hash: hash)
        count += 1
    }

    @inlinable func place(_ value: UInt32, hash: UInt64) {
        var slot = home(hash)
        while slots[slot] != 0 { slot = (slot + 1) & mask }
        slots[slot] = value
    }

    /// Re-places every entry into `newSize` slots, with index bits for indices up to
    /// twice the whole table's capacity (shards times this one's).
    @inlinable func rebuild(size newSize: Int, forIndex index: Int, rehash: (Int) -> UInt64) {
        let old = slots, oldSize = size, oldMask = indexMask
        let sizeBits = newSize.trailingZeroBitCount
        let needed = Int.bitWidth - (index + 1).leadingZeroBitCount + 1
        indexBits = min(32, max(needed, sizeBits + StateTable.shardBits + 1))
        indexMask = indexBits == 32 ? .max : (1 << UInt32(indexBits)) - 1
        slots = Self.allocate(newSize)
        size = newSize
        mask = newSize - 1
        for slot in 0..<oldSize where old[slot] != 0 {
            let stored = Int(old[slot] & oldMask) - 1
            let hash = rehash(stored)
            place(UInt32(stored + 1) | tag(hash), hash: hash)
        }
        LargePages.deallocate(old, bytes: oldSize * MemoryLayout<UInt32>.stride)
    }
}

/// One shard's slots as plain values, for the probes of the expansion phase (nobody
/// inserts then). Same layout and rules as ``StateTableShard``.
@usableFromInline struct StateTableView: @unchecked Sendable {
    @usableFromInline let slots: UnsafeMutablePointer<UInt32>
    @usableFromInline let mask: Int
    @usableFromInline let indexMask: UInt32

    @inlinable init(slots: UnsafeMutablePointer<UInt32>, mask: Int, indexMask: UInt32) {
        self.slots = slots
        self.mask = mask
        self.indexMask = indexMask
    }

    @inline(__always)
    @inlinable func home(_ hash: UInt64) -> Int { Int(truncatingIfNeeded: hash) & mask }

    @inline(__always)
    @inlinable func tag(_ hash: UInt64) -> UInt32 { UInt32(truncatingIfNeeded: hash >> 26) & ~indexMask }

    @inline(__always)
    @inlinable func find<State: Equatable>(_ state: State, hash: UInt64, in states: ChunkedArray<State>.View) -> Bool {
        let tag = tag(hash)
        var slot = home(hash)
        while true {
            let value = slots[slot]
            if value == 0 { return false }
            if value & ~indexMask == tag && states[Int(value & indexMask) - 1] == state { return true }
            slot = (slot + 1) & mask
        }
    }
}
