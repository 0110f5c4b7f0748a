import SimulationKernel

// The device's network path, read from the network (never from the client): without a path
// no attempt can succeed, so a client that watches it may wait for it instead of backing
// off, may retry at once when it returns, and need not count what failed meanwhile. A
// client that does not watch it is judged as before, on what it does meanwhile.
extension ClientLedger {
    /// The network path went away (`available` false) or came back.
    mutating func pathChanged(available: Bool, at now: VirtualClock.Instant) {
        pathLost = !available
        lastPathNewsAt = now
        // Whatever the client waited for before, it may act on this news now.
        pathNewsSinceFailure = true
        // Keeping on trying is judged from the path's return, not across the outage.
        if available { quietSince = max(quietSince, now) }
    }
}

/// A count of failures as the wire shows them, and the same count without the failures
/// the client learnt while the network path was gone (or at the instant it changed): a
/// client that watches the path counts none of those (ConnectionManager makes no attempt
/// then, and does not count the one it abandons when the path goes), one that does not
/// counts them all. A delay must fit one of the two.
struct FailureCount {
    var all = 0
    var onPath = 0

    mutating func add(offPath: Bool) {
        all += 1
        if !offPath { onPath += 1 }
    }

    var candidates: [Int] { [all, onPath] }
}
