/// One Promela process body (`do :: … od` around sequences of statements) compiled into
/// the table SPIN's `pan` runs: control locations, each with the statements that may
/// execute there. SPIN takes one step per statement (a guard, an assignment, an `else`,
/// a `skip`, an `assert` are each a transition) and stores the state between them, so a
/// port that applied a whole `do` option at once would store far fewer states than SPIN
/// (1,450 instead of 29,847 at the model's default bounds). This table takes the same
/// steps, and the state the checker stores is the variables plus the location.
///
/// ```swift
/// let process = PromelaProcess<Variables>(loop: [
///     [.when("x < 3") { $0.x < 3 }, .assign("x++") { $0.x += 1 }],
///     [.when("x == 3") { $0.x == 3 }, .choose([[.when("y") { $0.y }, .assign("y = false") { $0.y = false }]],
///                                             otherwise: [.skip])],
/// ])
/// process.successors(of: variables, at: process.start) { edge, next, location in … }
/// ```
///
/// Statement merging (`pan` merges steps on local variables only) does not apply: the
/// benchmark's process has none. `pan -d` prints SPIN's own table to compare with.
struct PromelaProcess<Variables>: Sendable {
    /// A statement of the process body, named by its Promela text (printed in counterexamples).
    enum Statement: Sendable {
        /// An expression statement: executable when true, changes nothing.
        case when(String, @Sendable (Variables) -> Bool)
        case assign(String, @Sendable (inout Variables) -> Void)
        /// Always executable; a false assertion is a violation of the state it is taken from.
        case assert(String, @Sendable (Variables) -> Bool)
        case skip
        /// `if :: … fi`: each option's first statement is its guard; `otherwise` (`else`)
        /// is executable only when no guard is.
        case choose([[Statement]], otherwise: [Statement]?)
    }

    /// One transition out of a location.
    struct Edge: Sendable {
        let text: String
        let guardHolds: (@Sendable (Variables) -> Bool)?
        let effect: (@Sendable (inout Variables) -> Void)?
        let target: Int
        /// An `else`: taken only when no other edge of the location is.
        let isElse: Bool
    }

    /// Edges by location; location `start` is the `do` loop's head.
    private(set) var edges: [[Edge]] = [[]]
    /// The assertion to check in states at a location, if one executes there.
    private(set) var assertions: [(@Sendable (Variables) -> Bool)?] = [nil]
    let start = 0

    init(loop options: [[Statement]]) {
        for option in options { compileOption(option, from: start, to: start) }
    }

    var locationCount: Int { edges.count }

    /// Calls `body` with each executable edge's index, the variables after it and the
    /// location it leads to, in edge order.
    @inline(__always)
    func successors(of variables: Variables, at location: Int, _ body: (Int, Variables, Int) -> Void) {
        let edges = edges[location]
        var taken = false
        var elseEdge: Int?
        for index in edges.indices {
            let edge = edges[index]
            if edge.isElse {
                elseEdge = index
                continue
            }
            if let guardHolds = edge.guardHolds, !guardHolds(variables) { continue }
            var next = variables
            edge.effect?(&next)
            taken = true
            body(index, next, edge.target)
        }
        if !taken, let index = elseEdge { body(index, variables, edges[index].target) }
    }

    // MARK: Compiling

    private mutating func newLocation() -> Int {
        edges.append([])
        assertions.append(nil)
        return edges.count - 1
    }

    /// Compiles `statements` (at least one) to run from `start` and end at `end`.
    private mutating func compileSequence(_ statements: [Statement], from start: Int, to end: Int) {
        precondition(!statements.isEmpty, "an empty sequence")
        var here = start
        for (position, statement) in statements.enumerated() {
            let next = position == statements.count - 1 ? end : newLocation()
            compileStatement(statement, from: here, to: next)
            here = next
        }
    }

    /// An option of a `do` or `if`: its guard is an edge of the selecting location itself.
    private mutating func compileOption(_ option: [Statement], from start: Int, to end: Int) {
        guard let first = option.first else { preconditionFailure("an empty option") }
        if case .choose = first { preconditionFailure("an option may not start with an if (not in this model)") }
        let rest = Array(option.dropFirst())
        let afterGuard = rest.isEmpty ? end : newLocation()
        compileStatement(first, from: start, to: afterGuard)
        if !rest.isEmpty { compileSequence(rest, from: afterGuard, to: end) }
    }

    /// `:: else -> statements`: the `else` is a step of its own, as in SPIN.
    private mutating func compileElse(_ statements: [Statement], from start: Int, to end: Int) {
        let afterElse = statements.isEmpty ? end : newLocation()
        edges[start].append(Edge(text: "else", guardHolds: nil, effect: nil, target: afterElse, isElse: true))
        if !statements.isEmpty { compileSequence(statements, from: afterElse, to: end) }
    }

    private mutating func compileStatement(_ statement: Statement, from start: Int, to end: Int) {
        switch statement {
        case .when(let text, let holds):
            edges[start].append(Edge(text: text, guardHolds: holds, effect: nil, target: end, isElse: false))
        case .assign(let text, let effect):
            edges[start].append(Edge(text: text, guardHolds: nil, effect: effect, target: end, isElse: false))
        case .assert(let text, let holds):
            assertions[start] = holds
            edges[start].append(Edge(text: "assert(\(text))", guardHolds: nil, effect: nil, target: end, isElse: false))
        case .skip:
            edges[start].append(Edge(text: "skip", guardHolds: nil, effect: nil, target: end, isElse: false))
        case .choose(let options, let otherwise):
            for option in options { compileOption(option, from: start, to: end) }
            if let otherwise { compileElse(otherwise, from: start, to: end) }
        }
    }
}
