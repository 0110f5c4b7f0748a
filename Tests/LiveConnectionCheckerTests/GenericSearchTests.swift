import LiveConnectionChecker
import TestScheduling
import Testing

/// The search's unsafe storage (chunked columns, sharded table, per-shard merge) with a
/// user's model whose state holds a reference-counted `String`, big enough that levels
/// are expanded and merged on several threads.
@Suite("A user's model with reference-counted states", .computeBound)
struct GenericSearchTests {
    /// Three counters in a cube of side `side`, each step increments one (saturating);
    /// the label is a string, so every state copy retains and releases.
    struct Cube: Model {
        struct State: Hashable, Sendable {
            var label: String
            var x: Int, y: Int, z: Int
        }
        enum Action: String, Hashable, Sendable, CustomStringConvertible {
            case x, y, z
            var description: String { rawValue }
        }

        var side = 60
        /// A corner that must not be reached (none when nil).
        var forbidden: (Int, Int, Int)?

        var initialStates: [State] { [State(label: "cube-\(side)", x: 0, y: 0, z: 0)] }

        func actions(in state: State) -> [Action] {
            [Action.x, .y, .z].filter { action in
                switch action {
                case .x: state.x < side - 1
                case .y: state.y < side - 1
                case .z: state.z < side - 1
                }
            }
        }

        func next(_ action: Action, after state: State) -> [State] {
            var state = state
            switch action {
            case .x: state.x += 1
            case .y: state.y += 1
            case .z: state.z += 1
            }
            return [state]
        }

        var properties: [Property<Cube>] {
            let forbidden = forbidden
            return [
                .always("avoids the corner") { state in
                    guard let (x, y, z) = forbidden else { return true }
                    return (state.x, state.y, state.z) != (x, y, z)
                },
                .sometimes("reaches the far corner") { $0.x == side - 1 && $0.y == side - 1 && $0.z == side - 1 },
            ]
        }
    }

    @Test("every state of the cube is stored once, on one or two threads", arguments: [1, 2])
    func exhaustsTheCube(threads: Int) {
        var options = CheckOptions()
        options.threads = threads
        // A side of 60 in CI's release step, 45 in a debug run (``TestScale/cubeSide``).
        let side = TestScale.cubeSide.count
        let result = ModelChecker(Cube(side: side)).run(options)
        #expect(result.passed)
        #expect(result.statistics.exhausted)
        #expect(result.statistics.distinctStates == side * side * side)
        #expect(result.statistics.depthReached == 3 * (side - 1))
    }

    @Test("a forbidden corner is reached by a shortest path, the same on one or two threads")
    func findsTheCorner() throws {
        var one = CheckOptions()
        one.threads = 1
        var two = CheckOptions()
        two.threads = 2
        let model = Cube(forbidden: (20, 30, 25))
        let a = try #require(ModelChecker(model).run(one).violation)
        let b = try #require(ModelChecker(model).run(two).violation)
        #expect(a.counterexample.length == 75)
        #expect(a.counterexample.actions == b.counterexample.actions)
        // The first shortest path in emission order: x first, then y, then z.
        #expect(
            a.counterexample.actions == Array(repeating: .x, count: 20) + Array(repeating: .y, count: 30)
                + Array(repeating: .z, count: 25))
    }
}
