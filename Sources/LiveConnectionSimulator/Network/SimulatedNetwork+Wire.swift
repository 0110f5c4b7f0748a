import LiveConnectionTraces
import SimulationKernel

extension SimulatedNetwork {
    /// The wire events from position `start` on (empty when the network does not record them).
    public func wireEvents(from start: Int) -> [WireEvent] {
        state.withLock { state in
            guard let wire = state.wire, start < wire.count else { return [] }
            return Array(wire[start...])
        }
    }

    /// Wakes a judge waiting in ``waitForWireEvent(after:)`` (only when recording: free otherwise).
    func ringWire() {
        if recordsWire { wireBell.ring() }
    }

    /// How many wire events were recorded so far.
    public var wireEventCount: Int { state.withLock { $0.wire?.count ?? 0 } }

    /// Parks until a wire event after the first `count` is recorded (at once if there is one),
    /// or the task is cancelled. A judge waits here so that it looks after every event.
    public func waitForWireEvent(after count: Int) async {
        let epoch = wireBell.epoch
        guard wireEventCount <= count else { return }
        await wireBell.wait(after: epoch)
    }
}

extension SimulatedNetwork.State {
    /// Appends a wire event if the network records them (the caller then rings ``SimulatedNetwork/wireBell``).
    mutating func record(_ kind: WireEvent.Kind, at now: VirtualClock.Instant) {
        guard wire != nil else { return }
        wire!.append(WireEvent(at: now, kind: kind))
    }
}
