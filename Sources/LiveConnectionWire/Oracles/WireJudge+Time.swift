import LiveConnection
import SimulationKernel

// The rules that depend on how much time passed: run after every wire event the judge
// reads, after every scheduled action, and once at the end of the run.
extension WireJudge {
    func checkTime(_ state: inout State, now: VirtualClock.Instant) {
        checkSockets(&state, now: now)
        checkDeadPeers(&state, now: now)
        checkReconnects(&state, now: now)
    }

    /// One socket per client (a second may overlap for the grace), and every socket
    /// resubscribed within the slack of its open.
    private func checkSockets(_ state: inout State, now: VirtualClock.Instant) {
        for client in state.ledgers.indices {
            let oneSocket = !state.hasReported(.wireOneSocket, client)
            let resubscribed = !state.hasReported(.wireResubscribedBeforeOpen, client)
            guard oneSocket || resubscribed else { continue }
            state.checks += 2
            let ledger = state.ledgers[client]
            if oneSocket, ledger.held.count >= 2, let newest = ledger.sockets[ledger.held[ledger.held.count - 1]],
                now - newest.openedAt > overlapGrace
            {
                let names = ledger.held.map { "socket \($0) (open since \(ledger.sockets[$0]!.openedAt))" }
                report(
                    &state, .wireOneSocket, client, now,
                    "\(ledger.held.count) sockets open at once: \(names.joined(separator: ", "))")
            }
            for socket in ledger.held where resubscribed && !ledger.sockets[socket]!.missingReported {
                guard now - ledger.sockets[socket]!.openedAt > slack else { continue }
                let missing = ledger.missing(on: socket)
                guard !missing.isEmpty else { continue }
                state.ledgers[client].sockets[socket]!.missingReported = true
                report(
                    &state, .wireResubscribedBeforeOpen, client, now,
                    "socket \(socket), open since \(ledger.sockets[socket]!.openedAt), never sent \(missing): broadcasts since went nowhere"
                )
            }
        }
    }

    /// A socket the peer went silent on (frozen, dropped by an idle timeout, ended without
    /// the client hearing) must be given up within the claimed P + T.
    private func checkDeadPeers(_ state: inout State, now: VirtualClock.Instant) {
        guard state.ledgers.indices.contains(where: { !state.hasReported(.wireDeadPeerGivenUp, $0) }) else { return }
        for (id, dead) in network.silentSockets() {
            state.checks += 1
            guard let client = state.socketOwner[id], !state.hasReported(.wireDeadPeerGivenUp, client),
                let socket = state.ledgers[client].sockets[id], !socket.told
            else { continue }
            let deadline = max(dead, socket.openedAt) + claims.deadPeerBound + slack
            if now > deadline {
                report(
                    &state, .wireDeadPeerGivenUp, client, now,
                    "socket \(id) has heard nothing since \(dead) and is still held at \(now) (claimed P + T = \(claims.deadPeerBound.traceFormatted))"
                )
            }
        }
    }

    /// Started, active, not stopped: the client keeps trying (no silence longer than its
    /// claimed largest delay and connect timeout, while there is a network path: without
    /// one a client may wait for it), and once the server has been healthy (and the path
    /// there) for the bound, a socket is open.
    private func checkReconnects(_ state: inout State, now: VirtualClock.Instant) {
        let silence = claims.backoff.maximum + claims.connectTimeout + slack
        for client in state.ledgers.indices {
            let ledger = state.ledgers[client]
            guard ledger.mustKeepTrying, !ledger.pathLost, ledger.held.isEmpty, now - ledger.quietSince > silence
            else { continue }
            // The oldest attempt still waiting (ids break ties, so the text does not depend on hashing).
            if let (attempt, since) = ledger.attemptsInFlight.min(by: { ($0.value, $0.key) < ($1.value, $1.key) }) {
                report(
                    &state, .wireReconnects, client, now,
                    "started and not stopped, but no socket since \(ledger.quietSince) (at \(now)): attempt \(attempt), "
                        + "made at \(since), is still pending, neither open nor given up after its claimed connect timeout "
                        + "(\(claims.connectTimeout.traceFormatted); with the largest delay + 2 s, \(silence.traceFormatted))"
                )
            } else {
                report(
                    &state, .wireReconnects, client, now,
                    "started and not stopped, but no socket and no attempt since \(ledger.quietSince) (at \(now)): "
                        + "it gave up (the claimed largest delay + connect timeout + 2 s is \(silence.traceFormatted))")
            }
        }
        guard network.acceptsConnections, network.idleTimeout == nil else {
            state.healthySince = nil
            return
        }
        let since = state.healthySince ?? now
        state.healthySince = since
        guard now - since > reconnectBound else { return }
        for client in state.ledgers.indices {
            state.checks += 1
            let ledger = state.ledgers[client]
            guard ledger.mustKeepTrying, ledger.held.isEmpty else { continue }
            report(
                &state, .wireReconnects, client, now,
                "the server has been healthy since \(since), the app started the client, yet no socket is open at \(now) "
                    + "(bound \(reconnectBound.traceFormatted): connect timeout + 2 × P + T + the largest claimed delay + 2 s)"
            )
        }
    }
}
