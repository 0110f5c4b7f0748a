/// Stores one breadth-first level's new states: deduplicates the workers' candidates
/// per table shard in parallel, numbers the survivors in canonical order, and stores
/// and inserts them per shard in parallel.
///
/// ```swift
/// let truncated = LevelMerge(outputs: outputs, parentLevel: 100..<250, states: states, parents: parents,
///                            ordinals: ordinals, table: table, model: model, threads: 2, limit: .max).run()
/// ```
///
/// The candidates were not in the visited set when they were found, and the set has not
/// changed since, so only duplicates *within* the level remain. Of equal candidates the
/// one with the smallest (parent index, emission ordinal) survives, and survivors are
/// numbered in that order: exactly the states, parents and indices a sequential search
/// expanding the level in index order would store, whatever order the workers expanded
/// it in and however many there were. The state bound keeps a prefix of that order.
@usableFromInline struct LevelMerge<M: Model>: Sendable {
    @usableFromInline let outputs: [WorkerOutput<M>]
    /// The indices of the level that was expanded (the parents).
    @usableFromInline let parentLevel: Range<Int>
    @usableFromInline let states: ChunkedArray<M.State>
    @usableFromInline let parents: ChunkedArray<UInt32>
    @usableFromInline let ordinals: ChunkedArray<UInt16>
    @usableFromInline let table: StateTable
    @usableFromInline let model: M
    @usableFromInline let threads: Int
    /// The state bound.
    @usableFromInline let limit: Int

    @inlinable init(
        outputs: [WorkerOutput<M>], parentLevel: Range<Int>, states: ChunkedArray<M.State>,
        parents: ChunkedArray<UInt32>,
        ordinals: ChunkedArray<UInt16>, table: StateTable, model: M, threads: Int, limit: Int
    ) {
        self.outputs = outputs
        self.parentLevel = parentLevel
        self.states = states
        self.parents = parents
        self.ordinals = ordinals
        self.table = table
        self.model = model
        self.threads = threads
        self.limit = limit
    }

    /// Stores the level; true if the state bound cut it.
    @inlinable func run() -> Bool {
        let shards = StateTable.shardCount
        let lists = ShardLists<M>(shards: shards)
        let total = outputs.reduce(0) { $0 + $1.candidates.count }
        let parallel = threads > 1 && total >= 4096
        perShard(parallel) { shard in lists.deduplicate(shard, outputs: outputs) }

        // Canonical numbering: a counting sort of the survivors by parent, then by
        // emission ordinal among one parent's (a handful: insertion sort).
        let survivors = (0..<shards).reduce(0) { $0 + lists.winners[shard: $1].count }
        var starts = [Int](repeating: 0, count: parentLevel.count + 1)
        for shard in 0..<shards {
            for key in lists.keys[shard: shard] { starts[Int(key >> 16) - parentLevel.lowerBound + 1] += 1 }
        }
        for parent in 0..<parentLevel.count { starts[parent + 1] += starts[parent] }
        var order = [UInt64](repeating: 0, count: survivors)  // shard << 32 | position, canonical order
        var orderKeys = [UInt64](repeating: 0, count: survivors)
        var cursor = starts
        for shard in 0..<shards {
            for (position, key) in lists.keys[shard: shard].enumerated() {
                let parent = Int(key >> 16) - parentLevel.lowerBound
                var slot = cursor[parent]
                cursor[parent] += 1
                // Keep the parent's run sorted by ordinal as it fills.
                while slot > starts[parent] && orderKeys[slot - 1] > key {
                    order[slot] = order[slot - 1]
                    orderKeys[slot] = orderKeys[slot - 1]
                    slot -= 1
                }
                order[slot] = UInt64(shard) << 32 | UInt64(position)
                orderKeys[slot] = key
            }
        }
        let base = states.count
        let kept = max(0, min(survivors, limit - base))
        for rank in 0..<kept {
            let reference = order[rank]
            lists.ranks[shard: Int(reference >> 32)][Int(reference & 0xFFFF_FFFF)] = UInt32(rank + 1)
        }
        let next = base + kept
        states.reserve(upTo: next)
        parents.reserve(upTo: next)
        ordinals.reserve(upTo: next)
        perShard(parallel) { shard in store(shard, lists, base: base) }
        states.count = next
        parents.count = next
        ordinals.count = next
        return kept < survivors
    }

    /// Runs `body` for every shard, on `threads` threads when `parallel` (each thread
    /// takes every `threads`-th shard: shards are about equally full).
    @inlinable func perShard(_ parallel: Bool, _ body: @Sendable (Int) -> Void) {
        let shards = StateTable.shardCount
        guard parallel else {
            for shard in 0..<shards { body(shard) }
            return
        }
        concurrentlyPerform(iterations: threads) { worker in
            for shard in stride(from: worker, to: shards, by: threads) { body(shard) }
        }
    }

    /// Writes a shard's kept survivors at their indices and inserts them into the
    /// shard's table.
    @inlinable func store(_ shard: Int, _ lists: ShardLists<M>, base: Int) {
        let table = table.shards[shard]
        for (reference, rank) in zip(lists.winners[shard: shard], lists.ranks[shard: shard]) where rank != 0 {
            let candidate = outputs[Int(reference >> 32)].candidates[Int(reference & 0xFFFF_FFFF)]
            let index = base + Int(rank) - 1
            states.initialize(index, to: candidate.state)
            parents.initialize(index, to: candidate.parent)
            ordinals.initialize(index, to: candidate.ordinal)
            table.insert(index: index, hash: candidate.hash) { model.fingerprint(states[$0]) }
        }
    }
}

/// Per shard: its survivors as (worker, position) references, their (parent, ordinal)
/// keys, and their canonical rank + 1 (0: cut by the state bound). Shard `s` is written
/// only by the thread that handles `s`, or by the sequential step between the phases.
@usableFromInline final class ShardLists<M: Model>: @unchecked Sendable {
    @usableFromInline let winners: PerShard<UInt64>
    @usableFromInline let keys: PerShard<UInt64>
    @usableFromInline let ranks: PerShard<UInt32>

    @inlinable init(shards: Int) {
        winners = PerShard(shards)
        keys = PerShard(shards)
        ranks = PerShard(shards)
    }

    /// Keeps one candidate per distinct state of `shard`: the one with the smallest
    /// (parent, ordinal) key.
    @inlinable func deduplicate(_ shard: Int, outputs: [WorkerOutput<M>]) {
        var count = 0
        for output in outputs { count += output.shardStarts[shard + 1] - output.shardStarts[shard] }
        guard count > 0 else { return }
        // An open-addressing table over the survivors found so far: each slot holds the
        // state, its hash and key next to the survivor + 1 (0: empty), so a probe, and
        // the comparison of a duplicate, is one cache line.
        let size = openAddressingSize(forCapacity: count)
        let mask = size - 1
        guard let filler = outputs.first(where: { $0.shardStarts[shard + 1] > $0.shardStarts[shard] }) else { return }
        let empty = SeenSlot(state: filler.candidates[filler.shardStarts[shard]].state, hash: 0, key: 0, survivor: 0)
        var seen = [SeenSlot<M.State>](repeating: empty, count: size)
        var winners: [UInt64] = []
        var keys: [UInt64] = []
        winners.reserveCapacity(count)
        keys.reserveCapacity(count)
        seen.withUnsafeMutableBufferPointer { seen in
            for (worker, output) in outputs.enumerated() {
                output.candidates.withUnsafeBufferPointer { candidates in
                    for position in output.shardStarts[shard]..<output.shardStarts[shard + 1] {
                        let candidate = candidates[position]
                        let reference = UInt64(worker) << 32 | UInt64(position)
                        let key = UInt64(candidate.parent) << 16 | UInt64(candidate.ordinal)
                        var slot = Int(truncatingIfNeeded: candidate.hash) & mask
                        var duplicate = false
                        while seen[slot].survivor != 0 {
                            let winner = Int(seen[slot].survivor) - 1
                            if seen[slot].hash == candidate.hash && seen[slot].state == candidate.state {
                                duplicate = true
                                if key < seen[slot].key {
                                    seen[slot].key = key
                                    winners[winner] = reference
                                    keys[winner] = key
                                }
                                break
                            }
                            slot = (slot + 1) & mask
                        }
                        if duplicate { continue }
                        winners.append(reference)
                        keys.append(key)
                        seen[slot] = SeenSlot(
                            state: candidate.state, hash: candidate.hash, key: key, survivor: UInt32(winners.count))
                    }
                }
            }
        }
        self.winners[shard: shard] = winners
        self.keys[shard: shard] = keys
        ranks[shard: shard] = [UInt32](repeating: 0, count: winners.count)
    }
}

@usableFromInline struct SeenSlot<State> {
    @usableFromInline var state: State
    @usableFromInline var hash: UInt64
    /// The survivor's (parent, ordinal) key.
    @usableFromInline var key: UInt64
    @usableFromInline var survivor: UInt32

    @inlinable init(state: State, hash: UInt64, key: UInt64, survivor: UInt32) {
        self.state = state
        self.hash = hash
        self.key = key
        self.survivor = survivor
    }
}

/// One value per shard in a fixed buffer, so threads handling different shards never
/// write the same array.
@usableFromInline final class PerShard<Value>: @unchecked Sendable {
    @usableFromInline let values: UnsafeMutableBufferPointer<[Value]>

    @inlinable init(_ shards: Int) {
        values = .allocate(capacity: shards)
        values.initialize(repeating: [])
    }

    deinit {
        values.deinitialize()
        values.deallocate()
    }

    @inlinable subscript(shard shard: Int) -> [Value] {
        get { values[shard] }
        _modify { yield &values[shard] }
    }
}
