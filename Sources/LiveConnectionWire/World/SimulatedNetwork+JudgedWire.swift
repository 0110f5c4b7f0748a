public import LiveConnectionSimulator
public import SimulationKernel

/// The simulated network is a wire a ``WireJudge`` reads: it knows every truth the judge asks
/// for. Here, beside the runs of the world, so the judge itself needs no world.
extension SimulatedNetwork: JudgedWire {
    public func client(ofAttempt attempt: Int, url: String) -> Int { WireJudge.client(of: url) }

    public func writer(of socket: Int) -> (stalled: Bool, lastStallEndedAt: VirtualClock.Instant?) {
        let link = link(socket: socket)
        return (link?.writerStalled ?? false, link?.lastStallEndedAt)
    }

    public func silentSockets() -> [(socket: Int, deadSince: VirtualClock.Instant)] {
        heldLinks().compactMap { link in link.deadSince.map { (link.id, $0) } }
    }
}

extension WireJudge {
    /// A judge of a simulated run with `clients` clients.
    public convenience init(
        claims: WireClaims, clients: Int, topics: [String], network: SimulatedNetwork, clock: VirtualClock
    ) {
        self.init(claims: claims, clients: clients, topics: topics, wire: network, clock: clock)
    }
}
