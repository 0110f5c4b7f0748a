import LiveConnectionChecker

/// `Benchmarks/spin/connection.pml` as a checker ``Model``: the same variables, the same
/// `do` options and inline blocks statement for statement, the same bounds, so that SPIN
/// and our checker store the same number of distinct states and can be timed side by side.
///
/// ```swift
/// let model = try SpinConnectionModel(maxGeneration: 4, maxSequence: 3, maxFailures: 4)
/// ModelChecker(model).run().statistics.distinctStates   // 29,847, as SPIN stores
/// ```
///
/// A state is the process's variables and its control location packed into 64 bits.
struct SpinConnectionModel: Model {
    enum BoundError: Error, CustomStringConvertible {
        case outOfRange(String, Int)
        var description: String {
            switch self {
            case .outOfRange(let name, let value): "\(name) must be 0…255 (a Promela byte), not \(value)"
            }
        }
    }

    /// One executable statement of the process: the edge taken out of a location.
    struct Step: Hashable, Sendable, CustomStringConvertible {
        let location: Int
        let edge: Int
        let description: String
    }

    let maxGeneration: Int
    let maxSequence: Int
    let maxFailures: Int
    let process: PromelaProcess<PromelaVariables>

    init(maxGeneration: Int, maxSequence: Int, maxFailures: Int) throws {
        for (name, value) in [("MAXGEN", maxGeneration), ("MAXSEQ", maxSequence), ("MAXFAIL", maxFailures)]
        where !(0...255).contains(value) {
            throw BoundError.outOfRange(name, value)
        }
        self.maxGeneration = maxGeneration
        self.maxSequence = maxSequence
        self.maxFailures = maxFailures
        process = Self.program(maxGeneration: maxGeneration, maxSequence: maxSequence, maxFailures: maxFailures)
        precondition(process.locationCount <= 256, "the location must fit its 8 bits")
    }

    var initialStates: [PromelaVariables] { [PromelaVariables()] }

    func actions(in state: PromelaVariables) -> [Step] {
        var steps: [Step] = []
        var unit: Void = ()
        expand(state, memo: &unit, where: nil) { step, _, _ in steps.append(step()) }
        return steps
    }

    func next(_ action: Step, after state: PromelaVariables) -> [PromelaVariables] {
        var result: [PromelaVariables] = []
        var unit: Void = ()
        expand(state, memo: &unit, where: nil) { step, _, next in
            if step() == action { result.append(next) }
        }
        return result
    }

    func expand(
        _ state: PromelaVariables, memo: inout Void, where filter: ((Step) -> Bool)?,
        _ body: (_ action: () -> Step, _ choice: Int, _ next: PromelaVariables) -> Void
    ) {
        let location = state.location
        process.successors(of: state, at: location) { edge, next, target in
            let step = { Step(location: location, edge: edge, description: process.edges[location][edge].text) }
            if let filter, !filter(step()) { return }
            var next = next
            next.location = target
            body(step, 0, next)
        }
    }

    func fingerprint(_ state: PromelaVariables) -> UInt64 {
        // A 64-bit finalizer (MurmurHash3's): every output bit depends on every input bit,
        // as the visited table needs of its shard, home-slot and tag bits.
        var bits = state.bits
        bits ^= bits >> 33
        bits &*= 0xff51_afd7_ed55_8ccd
        bits ^= bits >> 33
        bits &*= 0xc4ce_b9fe_1a85_ec53
        bits ^= bits >> 33
        return bits
    }

    /// Only where `live` is off or an assert executes can a property fail: one test instead
    /// of two closure calls per state.
    func invariantsMayFail(in state: PromelaVariables) -> Bool {
        state.live > 1 || process.assertions[state.location] != nil
    }

    var properties: [Property<SpinConnectionModel>] {
        let assertions = process.assertions
        return [
            .always("single", "[] (live <= 1): the LTL claim of the Promela model") { $0.live <= 1 },
            .always("assertions", "every assert of the process holds where it executes") { state in
                assertions[state.location].map { $0(state) } ?? true
            },
        ]
    }
}
