import LiveConnectionChecker
import TestScheduling
import Testing

/// The docs' example (docs/model-checking.md): a turnstile with a coin counter that
/// must never go negative. Kept compiling and passing here.
struct Turnstile: Model {
    enum Lock: Hashable, Sendable { case locked, unlocked }
    struct State: Hashable, Sendable {
        var lock = Lock.locked
        var coins = 0
    }
    enum Action: String, Hashable, Sendable, CustomStringConvertible {
        case coin, push
        var description: String { rawValue }
    }

    /// The bug to plant: let people through without paying.
    var freeRide = false
    /// A jammed coin slot: the model can do nothing, and must not pass for it.
    var jammed = false
    var maxCoins = 3

    var initialStates: [State] { [State()] }

    func actions(in state: State) -> [Action] {
        state.coins < maxCoins && !jammed ? [.coin, .push] : [.push]
    }

    func next(_ action: Action, after state: State) -> [State] {
        var state = state
        switch (action, state.lock) {
        case (.coin, _):
            state.coins += 1
            state.lock = .unlocked
        case (.push, .unlocked):
            state.lock = .locked
        case (.push, .locked):
            guard freeRide else { return [] }  // a locked turnstile does not turn
            state.coins -= 1
        }
        return [state]
    }

    var properties: [Property<Turnstile>] {
        [
            .always("paid", "nobody passes without paying", violation: { $0.coins < 0 ? "coins \($0.coins)" : nil }),
            .sometimes("full", "the coin box can fill up") { $0.coins == maxCoins },
            .eventually(
                "relocks", "an unlocked turnstile can lock again", from: { $0.lock == .unlocked },
                reaches: { $0.lock == .locked }, within: 1),
        ]
    }
}

@Suite("A user's own model", .computeBound)
struct ExampleModelTests {
    @Test(
        "the correct turnstile passes and every state is found",
        arguments: [SearchOrder.breadthFirst, .depthFirst])
    func correctTurnstilePasses(order: SearchOrder) {
        var options = CheckOptions()
        options.order = order
        let result = ModelChecker(Turnstile()).run(options)
        #expect(result.passed, "\(String(describing: result.violation))")
        // locked/unlocked × 0...3 coins, minus (unlocked, 0): 7 states.
        #expect(result.statistics.distinctStates == 7)
        #expect(result.statistics.exhausted)
    }

    @Test("the free ride is found with the shortest counterexample")
    func freeRideIsFound() throws {
        let result = ModelChecker(Turnstile(freeRide: true)).run()
        let violation = try #require(result.violation)
        #expect(violation.property == "paid")
        #expect(violation.counterexample.actions == [.push])
        #expect(violation.counterexample.final.coins == -1)
    }

    @Test("a model that can do nothing fails its sometimes property instead of passing vacuously")
    func vacuousModelFails() throws {
        let result = ModelChecker(Turnstile(jammed: true)).run()
        let violation = try #require(result.violation)
        #expect(violation.property == "full")
        #expect(violation.kind == .sometimes)
        #expect(result.statistics.distinctStates == 1)
    }

    @Test(
        "a bounded search that misses a sometimes goal says so, without calling it a violation",
        arguments: [SearchOrder.breadthFirst, .depthFirst])
    func boundedSearchIsNotAViolation(order: SearchOrder) {
        // The box is full only after three coins: depth 2 cannot get there, nor can 2 states.
        var byDepth = CheckOptions()
        byDepth.order = order
        byDepth.maxDepth = 2
        let shallow = ModelChecker(Turnstile()).run(byDepth)
        #expect(shallow.violation == nil)
        #expect(!shallow.passed)
        #expect(shallow.notReachedWithinBound == ["full"])

        var byStates = CheckOptions()
        byStates.order = order
        byStates.maxStates = 2
        let small = ModelChecker(Turnstile()).run(byStates)
        #expect(small.violation == nil)
        #expect(small.notReachedWithinBound == ["full"])

        // A bound the goal lies within passes; a real failure inside the bound stays one.
        byDepth.maxDepth = 6
        #expect(ModelChecker(Turnstile()).run(byDepth).passed)
        byDepth.maxDepth = 2
        #expect(ModelChecker(Turnstile(freeRide: true)).run(byDepth).violation?.property == "paid")
        // An exhaustive search that never reaches the goal is a violation: the model cannot do it.
        #expect(ModelChecker(Turnstile(jammed: true)).run(byDepth).violation?.kind == .sometimes)
    }

    @Test("a turnstile that cannot relock fails its eventually property")
    func stuckTurnstileFailsEventually() throws {
        struct Stuck: Model {
            var inner = Turnstile()
            var initialStates: [Turnstile.State] { inner.initialStates }
            func actions(in state: Turnstile.State) -> [Turnstile.Action] { inner.actions(in: state) }
            func next(_ action: Turnstile.Action, after state: Turnstile.State) -> [Turnstile.State] {
                action == .push && state.lock == .unlocked ? [] : inner.next(action, after: state)
            }
            var properties: [Property<Stuck>] {
                [.eventually("relocks", from: { $0.lock == .unlocked }, reaches: { $0.lock == .locked }, within: 3)]
            }
        }
        let violation = try #require(ModelChecker(Stuck()).run().violation)
        #expect(violation.property == "relocks")
        #expect(violation.kind == .eventually)
        #expect(violation.counterexample.actions == [.coin])
    }
}
