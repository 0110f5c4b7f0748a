/// A worker's small direct-mapped cache of the successors it resolved recently, so that
/// a successor met again (a diamond: two orders of the same two actions) skips the
/// probe of the big visited set, which costs a cache miss or two.
///
/// ```swift
/// var recent = RecentSuccessors<State>()
/// if let known = recent.lookup(next, hash: h) { … } else { … probe …; recent.record(next, hash: h, …) }
/// ```
///
/// Exact: an entry matches only an equal state. An entry says the state was either in
/// the visited set (or became stored since: anything recorded in an earlier level is) or
/// became the worker's candidate number `candidate` in the current level; a hit on a
/// candidate lets the caller keep the smaller (parent, ordinal) key on it, which keeps
/// the numbering canonical.
@usableFromInline struct RecentSuccessors<State: Equatable> {
    @usableFromInline struct Entry {
        @usableFromInline var state: State
        @usableFromInline var hash: UInt64
        /// The first index of the level it was recorded in.
        @usableFromInline var level: Int
        /// Its position among the worker's candidates of that level, or -1 if it was visited.
        @usableFromInline var candidate: Int

        @inlinable init(state: State, hash: UInt64, level: Int, candidate: Int) {
            self.state = state
            self.hash = hash
            self.level = level
            self.candidate = candidate
        }
    }

    @usableFromInline var entries: [Entry?]
    @usableFromInline let mask: Int

    /// 2¹² entries: about 200 KB for a 16-byte state, well within a core's L2 cache (a bigger
    /// cache that spills out of L2 was slower).
    @inlinable init(bits: Int = 12) {
        entries = Array(repeating: nil, count: 1 << bits)
        mask = (1 << bits) - 1
    }

    /// The slot of a hash: its bits 40 and up (the visited set indexes with the low bits).
    @inline(__always)
    @inlinable func slot(_ hash: UInt64) -> Int { Int(truncatingIfNeeded: hash >> 40) & mask }

    /// The entry for `state`, if it is cached.
    @inline(__always)
    @inlinable func lookup(_ state: State, hash: UInt64) -> Entry? {
        guard let entry = entries[slot(hash)], entry.hash == hash, entry.state == state else { return nil }
        return entry
    }

    @inline(__always)
    @inlinable mutating func record(_ state: State, hash: UInt64, level: Int, candidate: Int) {
        entries[slot(hash)] = Entry(state: state, hash: hash, level: level, candidate: candidate)
    }
}
