import Dispatch
import Foundation
import LiveConnection

/// Level-synchronous breadth-first search.
///
/// Each level is processed in two phases. *Expand* (parallel): the level's states are
/// split into one contiguous chunk per thread; a worker checks each state's properties,
/// computes its successors and keeps those the visited set (read-only during this
/// phase) does not hold yet. *Merge* (sequential, in chunk order): candidates are
/// inserted into the visited set and appended to the state array. The result is the
/// same for any thread count: the same states get the same indices, and the reported
/// violation is the one with the lowest index at the shallowest depth (a shortest path).
///
/// Memory per state: the state itself, a 4-byte parent index, a 2-byte emission ordinal
/// (the action is rebuilt by replaying the parent's expansion) and about 5–10 bytes of
/// hash table slot.
final class BreadthFirstSearch<M: Model> {
    let model: M
    let options: CheckOptions
    let evaluator: PropertyEvaluator<M>

    private var states: [M.State] = []
    private var parents: [UInt32] = []
    private var ordinals: [UInt16] = []
    private var table = StateTable(capacity: 1 << 16)
    private var statistics = SearchStatistics()
    private var reached: UInt64 = 0
    private var memos: [MemoBox<M>]

    init(model: M, options: CheckOptions) {
        self.model = model
        self.options = options
        evaluator = PropertyEvaluator(model: model, checkEventually: options.checkEventually)
        memos = (0..<max(1, options.threads)).map { _ in MemoBox(model.makeMemo()) }
    }

    func run() -> CheckResult<M> {
        let start = ContinuousClock.now
        statistics.threads = max(1, options.threads)
        statistics.strategy = .breadthFirst
        let outcome = search()
        let elapsed = ContinuousClock.now - start
        statistics.seconds = elapsed.seconds
        statistics.distinctStates = states.count
        statistics.memoryBytes =
            states.capacity * MemoryLayout<M.State>.stride + parents.capacity * 4 + ordinals.capacity * 2 + table.bytes
        return CheckResult(outcome: outcome, statistics: statistics)
    }

    private func search() -> CheckResult<M>.Outcome {
        for (choice, state) in model.initialStates.enumerated() {
            let hash = model.fingerprint(state)
            guard table.find(state, hash: hash, in: states) == nil else { continue }
            store(state, hash: hash, parent: .max, ordinal: choice)
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
            truncated = merge(outputs)
            levelStart = levelEnd
            depth += 1
        }
        statistics.exhausted = !truncated
        return unreachedSometimes()
    }

    /// Checks (and, if `expand`, expands) the states in `range`, in parallel chunks.
    private func process(_ range: Range<Int>, expand: Bool) -> [WorkerOutput<M>] {
        let threads = range.count < 512 ? 1 : max(1, options.threads)
        let chunk = (range.count + threads - 1) / threads
        let outputs = (0..<threads).map { _ in WorkerOutput<M>() }
        let snapshot = states
        let visited = table
        let evaluator = evaluator
        let model = model
        let memos = memos
        let work: @Sendable (Int) -> Void = { worker in
            let output = outputs[worker]
            let box = memos[worker]
            let low = range.lowerBound + worker * chunk
            let high = min(range.upperBound, low + chunk)
            guard low < high else { return }
            // Work in locals and publish once: class fields in the hot loop would pay
            // for exclusivity checks and reference counting on every successor.
            var found = output.violation
            var reached = output.reached
            var generated = 0
            var candidates: [M.State] = [], hashes: [UInt64] = [], parents: [UInt32] = [], ordinals: [UInt16] = []
            // Move the memo out (not copy: a shared one would be copied on first write).
            var memo = box.memo
            box.memo = model.makeMemo()
            for index in low..<high {
                let state = snapshot[index]
                if found == nil, let violation = evaluator.firstViolation(state, memo: &memo) {
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
                    if visited.find(next, hash: hash, in: snapshot) == nil {
                        candidates.append(next)
                        hashes.append(hash)
                        parents.append(UInt32(index))
                        ordinals.append(UInt16(truncatingIfNeeded: ordinal))
                    }
                }
                precondition(ordinal <= Int(UInt16.max), "more than 65535 successors of one state")
            }
            output.violation = found
            output.reached = reached
            output.generated = generated
            output.states = candidates
            output.hashes = hashes
            output.parents = parents
            output.ordinals = ordinals
            box.memo = memo
        }
        if threads == 1 {
            work(0)
        } else {
            DispatchQueue.concurrentPerform(iterations: threads, execute: work)
        }
        return outputs
    }

    /// Inserts the new candidates in chunk order; true if the state bound stopped it.
    private func merge(_ outputs: [WorkerOutput<M>]) -> Bool {
        let limit = options.maxStates ?? .max
        for output in outputs {
            for candidate in output.states.indices {
                let state = output.states[candidate]
                let hash = output.hashes[candidate]
                guard table.find(state, hash: hash, in: states) == nil else { continue }
                if states.count >= limit { return true }
                store(state, hash: hash, parent: output.parents[candidate], ordinal: Int(output.ordinals[candidate]))
            }
        }
        return false
    }

    private func store(_ state: M.State, hash: UInt64, parent: UInt32, ordinal: Int) {
        let index = states.count
        states.append(state)
        parents.append(parent)
        ordinals.append(UInt16(ordinal))
        table.insert(index: index, hash: hash) { model.fingerprint(states[$0]) }
    }

    private func violation(at index: Int, property: Int, message: String) -> Violation<M> {
        var path: [(parent: M.State, ordinal: Int)] = []
        var current = index
        while parents[current] != .max {
            let parent = Int(parents[current])
            path.append((states[parent], Int(ordinals[current])))
            current = parent
        }
        let counterexample = ModelChecker.counterexample(model: model, path: path.reversed(), initial: states[current])
        let property = evaluator.properties[property]
        return Violation(property: property.name, kind: property.kind, message: message, counterexample: counterexample)
    }

    private func unreachedSometimes() -> CheckResult<M>.Outcome {
        for (bit, index) in evaluator.sometimes.enumerated() where reached & (1 << UInt64(bit)) == 0 {
            let property = evaluator.properties[index]
            let initial = model.initialStates[0]
            return .violated(
                Violation(
                    property: property.name, kind: .sometimes,
                    message: "no reachable state satisfies it (\(states.count) states explored)",
                    counterexample: Counterexample(initial: initial, steps: [])))
        }
        return .passed
    }
}

/// One worker's results for one level; each worker writes only its own.
final class WorkerOutput<M: Model>: @unchecked Sendable {
    var states: [M.State] = []
    var hashes: [UInt64] = []
    var parents: [UInt32] = []
    var ordinals: [UInt16] = []
    var generated = 0
    var reached: UInt64 = 0
    var violation: (index: Int, property: Int, message: String)?
}

/// A worker's memo, kept across levels; only its worker touches it.
final class MemoBox<M: Model>: @unchecked Sendable {
    var memo: M.Memo
    init(_ memo: M.Memo) { self.memo = memo }
}
