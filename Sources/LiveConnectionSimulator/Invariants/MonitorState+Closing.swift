import LiveConnection
import SimulationKernel

// Close frames, judged at both ends: the app's disconnect reaches the server with the
// app's code and reason, as the server received it; the server's close frame reaches the
// app, as the client's transport delivered it.
extension MonitorState {
    /// The app's disconnect, with the close frame the app asked for (the driver says so,
    /// ``InvariantMonitor/appDisconnects(with:)``; never the frame the shell passed on): the app
    /// is shown stopped at once, and the live socket, once the manager heard its handshake
    /// complete, owes the server that frame (a handshake still finishing is given up: no frame
    /// is owed). A disconnect the app did not make (the harness shutting the manager down) is
    /// not judged.
    mutating func checkDisconnect(_ input: Input, _ effects: [Effect], before: Before, now: VirtualClock.Instant) {
        if case .opened(let g) = input, g == before.live { heardOpen = g }
        guard case .disconnect = input, let asked = appAskedClose, !runEnded else { return }
        appAskedClose = nil
        checks += 1
        let wasStopped = if case .stopped = before.phase { true } else { false }
        let showsStopped = effects.contains { if case .report(.stopped) = $0 { true } else { false } }
        if !wasStopped, before.phase != .idle, !showsStopped {
            violate(.disconnectClosesAsAsked, at: now, "\(input) while \(before.phase) did not show the app stopped")
        }
        guard let g = before.live, heardOpen == g, hasLink(for: g) else { return }
        owedCloses.append((g, asked, now))
        checkOwedCloses(now: now)
    }

    /// Each owed close, once the server received one: it must be the app's. One that never
    /// comes is a socket still held, which `single-live-transport` judges.
    mutating func checkOwedCloses(now: VirtualClock.Instant) {
        guard !owedCloses.isEmpty else { return }
        var stillOwed: [(generation: Generation, frame: CloseFrame, since: VirtualClock.Instant)] = []
        for owed in owedCloses {
            checks += 1
            guard let link = world.link(for: owed.generation) else { continue }
            guard let received = link.clientClose else {
                if now - owed.since <= Self.closeGrace + tolerance { stillOwed.append(owed) }
                continue
            }
            if received != owed.frame {
                violate(
                    .disconnectClosesAsAsked, at: now,
                    "the app disconnected with \(owed.frame) but the server received close \(received) on socket \(link.id) of \(owed.generation)"
                )
            }
        }
        owedCloses = stillOwed
    }

    /// The phase the app is shown when its live connection's reading side ends (the server's
    /// close frame, or an error) carries the close frame the client's transport delivered on
    /// that socket, code and reason, typed; none when none was delivered (a reset). A phase
    /// without a frame (connecting again at once, offline) has nothing to carry.
    mutating func checkCloseReachesApp(
        _ input: Input, _ effects: [Effect], before: Before, now: VirtualClock.Instant
    ) {
        let g: Generation
        switch input {
        case .closedByPeer(let ended, _, _), .failed(let ended, _): g = ended
        default: return
        }
        guard g == before.live, let link = world.link(for: g) else { return }
        for case .report(let phase) in effects {
            let shown: CloseFrame?
            switch phase {
            case .waiting(_, _, let close), .stopped(_, let close): shown = close
            default: continue
            }
            checks += 1
            if shown != link.serverCloseDelivered {
                violate(
                    .closeReachesTheApp, at: now,
                    "socket \(link.id) of \(g) received \(link.serverCloseDelivered.map { "close \($0)" } ?? "no close frame") but the app was shown \(phase)"
                )
            }
        }
    }
}
