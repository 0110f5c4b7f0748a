/// A path from an initial state to a state that breaks a property: the inputs to replay.
///
/// ```swift
/// if case .violated(let violation) = result.outcome {
///     for (number, step) in violation.counterexample.steps.enumerated() {
///         print("\(number + 1). \(step.action)")   // the machine inputs, in order
///     }
/// }
/// ```
///
/// `actions` is what a replay needs (the simulator's trace writer consumes it); `choice`
/// says which of a nondeterministic action's outcomes was taken (for the connection
/// model: which backoff draw).
public struct CounterexamplePath<M: Model>: Sendable {
    /// One step: the action taken, the outcome chosen, the state it led to.
    public struct Step: Sendable {
        public var action: M.Action
        public var choice: Int
        public var state: M.State

        @usableFromInline init(action: M.Action, choice: Int, state: M.State) {
            self.action = action
            self.choice = choice
            self.state = state
        }
    }

    /// Where the path starts.
    public var initial: M.State
    /// The steps, in order; the last state is the one that breaks the property.
    public var steps: [Step]

    @usableFromInline init(initial: M.State, steps: [Step]) {
        self.initial = initial
        self.steps = steps
    }

    /// The number of actions (the length BFS minimises).
    public var length: Int { steps.count }
    /// The action sequence to replay.
    public var actions: [M.Action] { steps.map(\.action) }
    /// The state the property fails in.
    public var final: M.State { steps.last?.state ?? initial }
}

/// A property that failed, with the evidence.
///
/// ```swift
/// if case .violated(let violation) = result.outcome { print(violation.property, violation.message) }
/// ```
public struct PropertyViolation<M: Model>: Sendable {
    /// The name of the property.
    public var property: String
    /// What kind of property it is.
    public var kind: Property<M>.Kind
    /// Why it failed, in the property's words.
    public var message: String
    /// The path to the failure (for `sometimes`, empty: there is no single witness).
    public var counterexample: CounterexamplePath<M>

    @usableFromInline init(
        property: String, kind: Property<M>.Kind, message: String, counterexample: CounterexamplePath<M>
    ) {
        self.property = property
        self.kind = kind
        self.message = message
        self.counterexample = counterexample
    }
}
