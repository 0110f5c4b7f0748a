// Rebuilding a machine from its parts, for tools that store machines compactly.
extension ConnectionMachine {
    /// A machine with exactly these fields: the model checker decodes its packed states
    /// with this, then steps the real machine (so what it checks is the shipped code).
    /// Package access: a tool of this package needs it, an app never does.
    ///
    /// ```swift
    /// let copy = ConnectionMachine(
    ///     configuration: m.configuration, state: m.state, wanted: m.wanted, foreground: m.foreground,
    ///     pathViable: m.pathViable, endpoint: m.endpoint, generation: m.generation, failures: m.failures, lastDelay: m.lastDelay,
    ///     topics: m.topics, hasBeenOpen: m.hasBeenOpen, lastSequence: m.lastSequence,
    ///     refreshInFlight: m.refreshInFlight)
    /// // copy == m
    /// ```
    ///
    /// The parts must be consistent, as the machine itself keeps them: a connecting or
    /// open state names the last generation minted.
    package init(
        configuration: ConnectionConfiguration, state: State, wanted: Bool, foreground: Bool, pathViable: Bool,
        endpoint: Endpoint?,
        generation: Generation, failures: Int, lastDelay: Duration?, topics: [String], hasBeenOpen: Bool,
        lastSequence: UInt64?,
        refreshInFlight: Bool
    ) {
        self.init(configuration: configuration)
        self.state = state
        self.wanted = wanted
        self.foreground = foreground
        self.pathViable = pathViable
        self.endpoint = endpoint
        self.generation = generation
        self.failures = failures
        self.lastDelay = lastDelay
        self.topics = topics
        self.hasBeenOpen = hasBeenOpen
        self.lastSequence = lastSequence
        self.refreshInFlight = refreshInFlight
        if let live = liveGeneration {
            precondition(live == generation, "restoring state \(state) with last generation \(generation)")
        }
        precondition(failures >= 0 && flushesPending >= 0, "restoring \(failures) failures, state \(state)")
    }
}
