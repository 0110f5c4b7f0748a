public import LiveConnectionTraces

extension Trace {
    /// The trace of a wire run: the scenario, the client kind and how many shared the server.
    ///
    /// ```swift
    /// let trace = Trace(wire: scenario, generator: WireScenarioGenerator.traceIdentity, client: "notifications")
    /// trace.wireScenario == scenario
    /// ```
    public init(
        wire scenario: WireScenario, generator: GeneratorID, client: String, expectation: Expectation? = nil,
        observed: [ObservedEvent] = []
    ) {
        self.init(scenario: scenario.base, generator: generator, expectation: expectation, observed: observed)
        self.client = client
        self.clients = scenario.clients
    }

    /// The wire scenario this trace describes, ready for ``WireRun``.
    public var wireScenario: WireScenario { WireScenario(base: scenario, clients: clients) }
}

/// The client kinds a build knows, by name: what `--client NAME` and a trace's `client:` line pick from.
///
/// ```swift
/// let catalogue = ClientCatalogue([ManagerClient.kind()] + ExampleClients.all)
/// let kind = try catalogue.kind(named: "notifications")
/// ```
public struct ClientCatalogue: Sendable {
    public var kinds: [ClientKind]

    public init(_ kinds: [ClientKind]) { self.kinds = kinds }

    public var names: [String] { kinds.map(\.name) }

    public func kind(named name: String) throws(ClientCatalogueError) -> ClientKind {
        guard let kind = kinds.first(where: { $0.name == name }) else { throw .unknown(name, known: names) }
        return kind
    }
}

public enum ClientCatalogueError: Error, Hashable, Sendable, CustomStringConvertible {
    case unknown(String, known: [String])

    public var description: String {
        switch self {
        case .unknown(let name, let known): "unknown client '\(name)' (known: \(known.joined(separator: ", ")))"
        }
    }
}
