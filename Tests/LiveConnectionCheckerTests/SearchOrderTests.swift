import LiveConnection
import LiveConnectionSimulator
import TestScheduling
import Testing

@testable import LiveConnectionChecker

/// The parallel breadth-first search (sharded table, locality-ordered expansion,
/// canonical numbering) must store exactly what the plainest sequential search stores,
/// and report the same counterexample, for any thread count.
@Suite("The parallel search matches a plain sequential one", .computeBound)
struct SearchOrderTests {
    /// What a textbook breadth-first search finds: a FIFO queue, a `Set`, the parent of
    /// each state its first discoverer, and the first dequeued state that breaks an
    /// invariant. Each parent is kept as its position in the queue, beside the state, not in
    /// a dictionary keyed by state: the same parents, without hashing every state a second
    /// time (in a debug build that dictionary was a third of this shared search's time).
    struct Reference {
        var distinct = 0
        var generated = 0
        /// The level of the deepest state stored (the initial state's is 0).
        var depth = 0
        var violation: (property: String, actions: [ConnectionAction], final: ConnectionModel.State)?
        /// The most states any one level holds.
        var widestLevel = 0
    }

    static func reference(_ model: ConnectionModel) -> Reference {
        let invariants = model.properties.compactMap { property -> (String, (ConnectionModel.State) -> String?)? in
            if case .always(let violation) = property.check { return (property.name, violation) }
            return nil
        }
        var memo = model.makeMemo()
        let initial = model.initialStates[0]
        var queue = [initial]
        var levels = [0]
        var seen: Set<ConnectionModel.State> = [initial]
        // parents[i]: the position in `queue` of queue[i]'s first discoverer, and the action.
        var parents: [(Int, ConnectionAction)?] = [nil]
        var result = Reference()
        var head = 0
        while head < queue.count {
            let state = queue[head]
            head += 1
            if let (name, _) = invariants.first(where: { $0.1(state) != nil }) {
                var actions: [ConnectionAction] = []
                var current = head - 1
                while let (previous, action) = parents[current] {
                    actions.append(action)
                    current = previous
                }
                result.violation = (name, actions.reversed(), state)
                break
            }
            model.expand(state, memo: &memo, where: nil) { action, _, next in
                result.generated += 1
                if next != state, seen.insert(next).inserted {
                    parents.append((head - 1, action()))
                    queue.append(next)
                    levels.append(levels[head - 1] + 1)
                }
            }
        }
        result.distinct = seen.count
        result.depth = levels.last ?? 0
        var width: [Int: Int] = [:]
        for level in levels { width[level, default: 0] += 1 }
        result.widestLevel = width.values.max() ?? 0
        return result
    }

    /// Without the app's path reports and its ping: the order of the search does not depend
    /// on what the world holds, and each multiplies the space these exhaustive debug searches
    /// walk (the path doubled it: the suite's longest tests, over 20 minutes of a loaded CI
    /// machine with it).
    static var world: ConnectionBounds {
        var bounds = ConnectionBounds()
        bounds.topics = 1
        bounds.commands = 0
        bounds.pings = 0
        bounds.serverLog = 0
        bounds.networkPath = false
        return bounds
    }

    /// The world the thread counts and depth-first search are compared in: no topics and one
    /// endpoint, which keeps 75,831 states (levels wide enough for parallel expansion and
    /// merges) and takes the four searches of a debug run from two minutes to seconds. A
    /// debug run walks it with the path's two reports in place of the network faults: 42,258
    /// states, its widest levels still over 4,096 (``TestScale/searchSpaceStates``).
    static var spaceWorld: ConnectionBounds {
        var bounds = world
        bounds.topics = 0
        bounds.endpoints = 1
        if !TestScale.searchSpaceStates.reaches(75_831) {
            bounds.networkFaults = false
            bounds.networkPath = true
        }
        return bounds
    }

    /// The reference run of the correct model, shared by the thread counts.
    static let space: Reference? = (try? ConnectionModel(bounds: spaceWorld)).map(reference)

    /// Visits the first `limit` states of a plain breadth-first walk (no checks, no bounds).
    static func visitBreadthFirst(
        _ model: ConnectionModel, first limit: Int, _ visit: (ConnectionModel.State) -> Void
    ) {
        var memo = model.makeMemo()
        var queue = model.initialStates
        var seen = Set(queue)
        var head = 0
        while head < queue.count && head < limit {
            let state = queue[head]
            head += 1
            visit(state)
            model.expand(state, memo: &memo, where: nil) { _, _, next in
                if seen.insert(next).inserted { queue.append(next) }
            }
        }
    }

    @Test("an expansion whose filter answers are remembered per key emits what the plain filtered one emits")
    func keyedFilterMatchesPlainFilter() throws {
        let model = try ConnectionModel(bounds: Self.world)
        // Two filters that split the inputs between them, under two keys in one memo: a
        // mix-up of keys, or an answer kept for the wrong input, would show.
        let progress: (ConnectionAction) -> Bool = { action in
            switch action {
            case .input(.timerFired(.retry)), .input(.opened), .input(.flushed): true
            default: false
            }
        }
        let filters: [(ConnectionAction) -> Bool] = [
            progress, { action in if case .input = action { !progress(action) } else { false } },
        ]
        var keyed = model.makeMemo()
        var plain = model.makeMemo()
        var compared = 0
        // 20,000 states in CI's release step, 10,000 in a debug run (``TestScale/keyedFilterStates``).
        Self.visitBreadthFirst(model, first: TestScale.keyedFilterStates.count) { state in
            for (key, filter) in filters.enumerated() {
                var fromKeyed: [ConnectionModel.State] = []
                var fromPlain: [ConnectionModel.State] = []
                model.expand(state, memo: &keyed, where: filter, filterKey: key) { _, _, next in fromKeyed.append(next)
                }
                model.expand(state, memo: &plain, where: filter) { _, _, next in fromPlain.append(next) }
                #expect(fromKeyed == fromPlain)
                compared += fromPlain.count
            }
        }
        #expect(compared > 10_000, "the filters let enough through to compare: \(compared)")
    }

    @Test(
        "the same distinct and generated counts and depth as a Set-based search, thread count by thread count",
        // 1 and 2 in a debug run, 3 too in CI's release step (``TestScale/sameSpaceThreadCounts``).
        arguments: Array(1...TestScale.sameSpaceThreadCounts.count))
    func sameSpace(threads: Int) throws {
        let model = try ConnectionModel(bounds: Self.spaceWorld)
        let expected = try #require(Self.space)
        var options = CheckOptions()
        options.threads = threads
        options.checkEventually = false
        let result = model.check(options)
        #expect(result.passed)
        #expect(result.statistics.distinctStates == expected.distinct)
        #expect(result.statistics.statesGenerated == expected.generated)
        #expect(result.statistics.depthReached == expected.depth)
        // The world docs/ci.md names, at this run's size (``TestScale/searchSpaceStates``).
        #expect(expected.distinct == TestScale.searchSpaceStates.count)
        // Big enough for parallel levels and merges: two threads expand a level of 512 states
        // or more in parallel, and merge its candidates in parallel from 4,096.
        #expect(expected.widestLevel > 4_096, "the widest level holds \(expected.widestLevel) states")
    }

    @Test("depth-first search with fingerprints visits as many states as breadth-first")
    func depthFirstCoversTheSpace() throws {
        var options = CheckOptions()
        options.order = .depthFirst
        let result = try ConnectionModel(bounds: Self.spaceWorld).check(options)
        #expect(result.passed)
        #expect(result.statistics.distinctStates == (try #require(Self.space)).distinct)
        #expect(result.statistics.distinctStates == TestScale.depthFirstSpaceStates.count)
    }

    /// One command more, so that every broken variant shows (its search stops early).
    static var variantWorld: ConnectionBounds {
        var bounds = world
        bounds.commands = 1
        return bounds
    }

    /// The variants with a bug this world can show, so each case compares two counterexamples.
    /// Left out: gives-up-early, forgets-close-code and drops-close-reason (without an attempt
    /// limit, an app close frame or a close reason, which the model has none of, each is the
    /// shipped machine); retries-immediately (only real time tells it apart) and
    /// replays-initial-phase (the events() stream's, not the machine's); ignores-path,
    /// misses-path-return and forgets-pings (this world has no path reports and no pings).
    /// Each of those would walk the whole space to agree on no bug, which `sameSpace` already
    /// compares on the shipped machine: in a debug build they were most of this suite's time.
    static let variantsWithABug = LogicVariant.all.filter {
        $0 != .correct
            && ![
                "gives-up-early", "forgets-close-code", "drops-close-reason", "retries-immediately",
                "replays-initial-phase", "ignores-path", "misses-path-return", "forgets-pings",
            ].contains($0.name)
    }

    @Test(
        "the reported counterexample is the first one a sequential search meets, on 1 and 2 threads",
        // All of them in CI's release step, the first two in a debug run (``TestScale/sameCounterexampleVariants``).
        arguments: TestScale.sameCounterexampleVariants.leading(variantsWithABug))
    func sameCounterexample(variant: LogicVariant) throws {
        let model = try ConnectionModel(bounds: Self.variantWorld, variant: variant)
        // The textbook search is walked once per variant; each thread count is held to it.
        let expected = try #require(Self.reference(model).violation, "\(variant.name) shows no bug in this world")
        for threads in [1, 2] {
            var options = CheckOptions()
            options.threads = threads
            options.checkEventually = false
            let violation = model.check(options).violation
            #expect(violation?.kind == .always, "\(threads) threads")
            #expect(violation?.property == expected.property, "\(threads) threads")
            #expect(violation?.counterexample.actions == expected.actions, "\(threads) threads")
            #expect(violation?.counterexample.final == expected.final, "\(threads) threads")
        }
    }

    @Test("a state bound keeps the same states whatever the thread count")
    func boundIsDeterministic() throws {
        let model = try ConnectionModel(bounds: Self.world)
        var options = CheckOptions()
        options.maxStates = 20_000
        options.checkEventually = false
        options.threads = 1
        let one = model.check(options).statistics
        options.threads = 2
        let two = model.check(options).statistics
        #expect(one.distinctStates == 20_000 && two.distinctStates == 20_000)
        #expect(!one.exhausted && !two.exhausted)
        #expect(one.statesGenerated == two.statesGenerated)
    }

    @Test(
        "the invariant pre-check never hides a failing property",
        arguments: LogicVariant.all.filter {
            ["correct", "ignores-generations", "gives-up", "no-pong-deadline"].contains($0.name)
        })
    func preCheckIsSound(variant: LogicVariant) throws {
        // Every `always` property of the connection model must be covered by
        // invariantsMayFail(in:): a property added without it would be skipped silently.
        let model = try ConnectionModel(bounds: Self.world, variant: variant)
        let invariants = model.properties.compactMap { property -> ((ConnectionModel.State) -> String?)? in
            if case .always(let violation) = property.check { return violation }
            return nil
        }
        var failing = 0
        // 30,000 states in CI's release step, 5,000 in a debug run (``TestScale/preCheckStates``).
        Self.visitBreadthFirst(model, first: TestScale.preCheckStates.count) { state in
            let fails = invariants.contains { $0(state) != nil }
            if fails { failing += 1 }
            #expect(!fails || model.invariantsMayFail(in: state), "\(state) fails an invariant the pre-check passed")
        }
        #expect(variant == .correct ? failing == 0 : failing > 0)
    }
}
