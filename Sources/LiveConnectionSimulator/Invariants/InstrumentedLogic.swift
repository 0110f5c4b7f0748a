import LiveConnection

/// The wrapper every simulated run puts around the logic under test: it names each
/// connection attempt's generation in a request header, so the simulated network knows
/// which generation owns which socket.
///
/// ```swift
/// let logic = InstrumentedLogic(base: ConnectionMachine(configuration: configuration))
/// // .openConnection(g3, endpoint) now carries the header "X-Simulation-Generation: 3"
/// ```
///
/// It changes nothing else: the invariants compare what the manager believes (its effects)
/// with what the network knows, and they need the two to share names.
struct InstrumentedLogic: ConnectionLogic {
    var base: any ConnectionLogic

    var phase: Phase { base.phase }

    mutating func handle(_ input: Input, using random: inout some RandomSource) -> [Effect] {
        var effects = base.handle(input, using: &random)
        for index in effects.indices {
            guard case .openConnection(let g, var endpoint) = effects[index] else { continue }
            endpoint.headers.append(Endpoint.Header(SimulatedNetwork.generationHeader, String(g.rawValue)))
            effects[index] = .openConnection(g, endpoint)
        }
        return effects
    }
}
