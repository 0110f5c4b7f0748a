import Foundation
import LiveConnection

/// Level-synchronous breadth-first search.
///
/// Each level is processed in three phases, the first and last in parallel.
/// *Expand*: the level's states are split into one contiguous chunk per thread; a
/// worker checks each state's properties, computes its successors and keeps those the
/// visited set (read-only during this phase) does not hold, grouped by table shard.
/// *Deduplicate*: per shard, in parallel, the candidates are taken in level order
/// (chunk by chunk) and the first occurrence of each new state wins.
/// *Store*: the winners get indices shard after shard, each shard in first-occurrence
/// order, and each shard stores and inserts its own, in parallel.
///
/// Every phase's result depends only on the level's order, never on the thread count:
/// the same states get the same indices for any number of threads, and the reported
/// violation, the lowest index at the shallowest depth, is a shortest counterexample.
///
/// Memory per state: the state itself, a 4-byte parent index, a 2-byte emission ordinal
/// (the action is rebuilt by replaying the parent's expansion) and 5.3–10.7 bytes of
/// hash table slot; the columns grow by chunks, not by doubling.
@usableFromInline final class BreadthFirstSearch<M: Model> {
    @usableFromInline let model: M
    @usableFromInline let options: CheckOptions
    @usableFromInline let evaluator: PropertyEvaluator<M>
    @usableFromInline let threads: Int

    @usableFromInline let states = ChunkedArray<M.State>()
    @usableFromInline let parents = ChunkedArray<UInt32>()
    @usableFromInline let ordinals = ChunkedArray<UInt16>()
    @usableFromInline let table = StateTable()
    @usableFromInline var statistics = SearchStatistics()
    @usableFromInline var reached: UInt64 = 0
    @usableFromInline let memos: [MemoBox<M>]
    /// One per thread, reused level after level (their buffers keep their capacity).
    @usableFromInline let outputs: [WorkerOutput<M>]

    @inlinable init(model: M, options: CheckOptions) {
        self.model = model
        self.options = options
        threads = max(1, options.threads)
        evaluator = PropertyEvaluator(model: model, checkEventually: options.checkEventually)
        memos = (0..<threads).map { _ in MemoBox(model.makeMemo()) }
        outputs = (0..<threads).map { _ in WorkerOutput<M>() }
    }

    @inlinable func run() -> CheckResult<M> {
        let start = ContinuousClock.now
        statistics.threads = threads
        statistics.order = .breadthFirst
        let outcome = search()
        let elapsed = ContinuousClock.now - start
        statistics.seconds = searchSeconds(elapsed)
        statistics.distinctStates = states.count
        statistics.memoryBytes = states.bytes + parents.bytes + ordinals.bytes + table.bytes
        return CheckResult(outcome: outcome, statistics: statistics)
    }

    @inlinable func search() -> CheckResult<M>.Outcome {
        for (choice, state) in model.initialStates.enumerated() {
            let hash = model.fingerprint(state)
            guard table.find(state, hash: hash, in: states) == nil else { continue }
            let index = states.count
            states.append(state)
            parents.append(.max)
            ordinals.append(UInt16(choice))
            table.shard(of: hash).insert(index: index, hash: hash) { [states, model] in model.fingerprint(states[$0]) }
        }
        var levelStart = 0
        var depth = 0
        var truncated = false
        while levelStart < states.count {
            let levelEnd = states.count
            statistics.depthReached = depth
            let expand = !truncated && depth < (options.maxDepth ?? .max)
            if !expand && !truncated { statistics.depthBoundHit = true }
            let outputs = process(levelStart..<levelEnd, expand: expand)
            // The lowest-index violation of this level: the shallowest, deterministic one.
            for output in outputs {
                reached |= output.reached
                statistics.statesGenerated += output.generated
            }
            if let found = outputs.compactMap(\.violation).min(by: { $0.index < $1.index }) {
                return .violated(violation(at: found.index, property: found.property, message: found.message))
            }
            if !expand { break }
            truncated = LevelMerge(
                outputs: outputs, parentLevel: levelStart..<levelEnd, states: states, parents: parents,
                ordinals: ordinals, table: table,
                model: model, threads: threads, limit: options.maxStates ?? .max
            ).run()
            levelStart = levelEnd
            depth += 1
            statistics.distinctStates = states.count
            options.progress?(statistics)
        }
        statistics.exhausted = !truncated
        statistics.distinctStates = states.count
        return evaluator.verdict(reached: reached, statistics: statistics, initial: model.initialStates[0])
    }

    /// Checks (and, if `expand`, expands) the states in `range`, in parallel chunks of
    /// the level's locality order.
    @inlinable func process(_ range: Range<Int>, expand: Bool) -> [WorkerOutput<M>] {
        let threads = range.count < 512 ? 1 : threads
        let order = localityOrder(range)
        let chunk = (range.count + threads - 1) / threads
        let outputs = Array(self.outputs.prefix(threads))
        for output in self.outputs { output.reset() }
        let states = states
        let visited = table.view
        let evaluator = evaluator
        let model = model
        let memos = memos
        let work: @Sendable (Int) -> Void = { worker in
            let output = outputs[worker]
            let box = memos[worker]
            let low = worker * chunk
            let high = min(range.count, low + chunk)
            guard low < high else { return }
            // Work in locals and publish once: class fields in the hot loop would pay
            // for exclusivity checks and reference counting on every successor.
            var found = output.violation
            var reached = output.reached
            var generated = 0
            var candidates = output.takeFound()
            var recent = output.takeRecent()
            var batch: [Candidate<M.State>] = []
            batch.reserveCapacity(128)
            var touched: UInt32 = 0
            var homes: [UInt32] = []
            let view = states.view
            // Move the memo out (not copy: a shared one would be copied on first write).
            var memo = box.memo
            box.memo = model.makeMemo()
            var scratch: [M.State] = []
            for position in low..<high {
                let index = Int(order[position])
                let state = view[index]
                // The lowest index of the level that fails (the order is not index order).
                if let violation = evaluator.firstViolation(state, memo: &memo, scratch: &scratch),
                    index < found?.index ?? .max
                {
                    found = (index, violation.property, violation.message)
                }
                if reached != evaluator.allReached {
                    reached |= evaluator.reached(state, pending: ~reached)
                }
                guard expand, found == nil else { continue }
                var ordinal = 0
                model.expand(state, memo: &memo, where: nil) { _, _, next in
                    defer { ordinal += 1 }
                    generated += 1
                    if next == state { return }
                    let hash = model.fingerprint(next)
                    if let known = recent.lookup(next, hash: hash) {
                        // Met before: visited, or already this level's candidate (keep
                        // the smaller key on it, as the merge would).
                        if known.level == range.lowerBound && known.candidate >= 0 {
                            let key = UInt64(index) << 16 | UInt64(ordinal)
                            let other = candidates[known.candidate]
                            if key < UInt64(other.parent) << 16 | UInt64(other.ordinal) {
                                candidates[known.candidate].parent = UInt32(index)
                                candidates[known.candidate].ordinal = UInt16(truncatingIfNeeded: ordinal)
                            }
                        }
                        return
                    }
                    batch.append(
                        Candidate(
                            state: next, hash: hash, parent: UInt32(index),
                            ordinal: UInt16(truncatingIfNeeded: ordinal)))
                }
                precondition(ordinal <= Int(UInt16.max), "more than 65535 successors of one state")
                if batch.count >= 64 {
                    visited.withUnsafeBufferPointer {
                        Self.probe(
                            &batch, &homes, into: &candidates, recent: &recent, level: range.lowerBound, visited: $0,
                            states: view, touched: &touched)
                    }
                }
            }
            visited.withUnsafeBufferPointer {
                Self.probe(
                    &batch, &homes, into: &candidates, recent: &recent, level: range.lowerBound, visited: $0,
                    states: view, touched: &touched)
            }
            output.violation = found
            output.reached = reached
            output.generated = generated
            output.touched = touched
            output.group(candidates)
            output.found = candidates
            output.recent = recent
            box.memo = memo
        }
        if threads == 1 {
            work(0)
        } else {
            concurrentlyPerform(iterations: threads, work)
        }
        return outputs
    }

    /// Probes a batch of successors and moves those the visited set does not hold to
    /// `candidates`, in three passes: the loads of the first two are independent of one
    /// another, so their cache misses overlap; the third finds the lines in cache.
    /// (A static function of inout arguments: a nested function capturing the worker's
    /// variables would make every access to them a dynamically checked one.)
    @inlinable static func probe(
        _ batch: inout [Candidate<M.State>], _ homes: inout [UInt32], into candidates: inout [Candidate<M.State>],
        recent: inout RecentSuccessors<M.State>, level: Int, visited: UnsafeBufferPointer<StateTableView>,
        states: ChunkedArray<M.State>.View, touched: inout UInt32
    ) {
        let count = batch.count
        if homes.count < count { homes.append(contentsOf: repeatElement(0, count: count - homes.count)) }
        batch.withUnsafeBufferPointer { batch in
            homes.withUnsafeMutableBufferPointer { homes in
                for item in 0..<count {
                    let hash = batch[item].hash
                    let shard = visited[StateTable.shardIndex(hash)]
                    homes[item] = shard.slots[shard.home(hash)]
                }
                var sum: UInt32 = 0
                for item in 0..<count {
                    let hash = batch[item].hash
                    let shard = visited[StateTable.shardIndex(hash)]
                    let value = homes[item]
                    if value != 0 && value & ~shard.indexMask == shard.tag(hash) {
                        sum &+= UInt32(states.address(Int(value & shard.indexMask) - 1).load(as: UInt8.self))
                    }
                }
                touched &+= sum
                for item in 0..<count {
                    let pending = batch[item]
                    let shard = visited[StateTable.shardIndex(pending.hash)]
                    if shard.find(pending.state, hash: pending.hash, in: states) {
                        recent.record(pending.state, hash: pending.hash, level: level, candidate: -1)
                    } else {
                        recent.record(pending.state, hash: pending.hash, level: level, candidate: candidates.count)
                        candidates.append(pending)
                    }
                }
            }
        }
        batch.removeAll(keepingCapacity: true)
    }

    /// The level's indices grouped by locality bucket (the model's key, hashed), in
    /// index order within a bucket: a counting sort. States that share work (for the
    /// connection model, a machine and its cached steps) are then expanded together.
    @inlinable func localityOrder(_ range: Range<Int>) -> [UInt32] {
        let bucketBits = 12
        var buckets = [UInt16](repeating: 0, count: range.count)
        var starts = [Int](repeating: 0, count: (1 << bucketBits) + 1)
        for offset in 0..<range.count {
            let key = model.localityKey(states[range.lowerBound + offset]) &* 0x9E37_79B9_7F4A_7C15
            let bucket = Int(truncatingIfNeeded: key >> UInt64(64 - bucketBits))
            buckets[offset] = UInt16(bucket)
            starts[bucket + 1] += 1
        }
        for bucket in 0..<(1 << bucketBits) { starts[bucket + 1] += starts[bucket] }
        var order = [UInt32](repeating: 0, count: range.count)
        for offset in 0..<range.count {
            let bucket = Int(buckets[offset])
            order[starts[bucket]] = UInt32(range.lowerBound + offset)
            starts[bucket] += 1
        }
        return order
    }

    @inlinable func violation(at index: Int, property: Int, message: String) -> PropertyViolation<M> {
        var path: [(parent: M.State, ordinal: Int)] = []
        var current = index
        while parents[current] != .max {
            let parent = Int(parents[current])
            path.append((states[parent], Int(ordinals[current])))
            current = parent
        }
        let counterexample = ModelChecker.counterexample(model: model, path: path.reversed(), initial: states[current])
        let property = evaluator.properties[property]
        return PropertyViolation(
            property: property.name, kind: property.kind, message: message, counterexample: counterexample)
    }
}

/// A successor the visited set did not hold when its parent was expanded.
@usableFromInline struct Candidate<State> {
    @usableFromInline var state: State
    @usableFromInline var hash: UInt64
    @usableFromInline var parent: UInt32
    @usableFromInline var ordinal: UInt16

    @inlinable init(state: State, hash: UInt64, parent: UInt32, ordinal: UInt16) {
        self.state = state
        self.hash = hash
        self.parent = parent
        self.ordinal = ordinal
    }
}

/// One worker's results for one level; each worker writes only its own.
@usableFromInline final class WorkerOutput<M: Model>: @unchecked Sendable {
    /// The candidates grouped by table shard, each group in level order.
    @usableFromInline var candidates: [Candidate<M.State>] = []
    /// Where each shard's group starts in `candidates` (one more entry than shards).
    @usableFromInline var shardStarts: [Int] = []
    @usableFromInline var generated = 0
    @usableFromInline var reached: UInt64 = 0
    /// The sum of the prefetching loads (kept so the compiler cannot drop them).
    @usableFromInline var touched: UInt32 = 0
    @usableFromInline var violation: (index: Int, property: Int, message: String)?

    /// Candidates in expansion order (a buffer kept for its capacity).
    @usableFromInline var found: [Candidate<M.State>] = []
    /// The worker's recently met successors, kept across levels.
    @usableFromInline var recent = RecentSuccessors<M.State>()

    @inlinable init() {}

    /// The recent-successor cache, moved out (so recording into it does not copy).
    @inlinable func takeRecent() -> RecentSuccessors<M.State> {
        var cache = RecentSuccessors<M.State>(bits: 0)
        swap(&cache, &recent)
        return cache
    }

    /// Clears the figures of the last level.
    @inlinable func reset() {
        generated = 0
        reached = 0
        touched = 0
        violation = nil
        shardStarts = [Int](repeating: 0, count: StateTable.shardCount + 1)
        candidates.removeAll(keepingCapacity: true)
    }

    /// The found buffer, emptied, moved out (so appending to it does not copy).
    @inlinable func takeFound() -> [Candidate<M.State>] {
        var buffer: [Candidate<M.State>] = []
        swap(&buffer, &found)
        buffer.removeAll(keepingCapacity: true)
        return buffer
    }

    /// Stores `found` grouped by shard, keeping their order within each shard (a stable
    /// counting sort).
    @inlinable func group(_ found: [Candidate<M.State>]) {
        var starts = [Int](repeating: 0, count: StateTable.shardCount + 1)
        for candidate in found { starts[StateTable.shardIndex(candidate.hash) + 1] += 1 }
        for shard in 0..<StateTable.shardCount { starts[shard + 1] += starts[shard] }
        shardStarts = starts
        candidates.removeAll(keepingCapacity: true)
        guard let first = found.first else { return }
        candidates.append(contentsOf: repeatElement(first, count: found.count))
        candidates.withUnsafeMutableBufferPointer { grouped in
            for candidate in found {
                let shard = StateTable.shardIndex(candidate.hash)
                grouped[starts[shard]] = candidate
                starts[shard] += 1
            }
        }
    }
}

/// A worker's memo, kept across levels; only its worker touches it.
@usableFromInline final class MemoBox<M: Model>: @unchecked Sendable {
    @usableFromInline var memo: M.Memo
    @inlinable init(_ memo: M.Memo) { self.memo = memo }
}
