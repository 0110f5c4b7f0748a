import LiveConnection
import SimulationKernel

// The checks that depend on how much time passed: run after every observed step, after
// every scheduled action, and once at the end of the run.
extension MonitorState {
    mutating func checkTime(now: VirtualClock.Instant) {
        guard !runEnded else { return }
        checkNewLinks(now: now)
        checkDeadPeer(now: now)
        checkHeldSockets(now: now)
        checkLiveness(now: now)
        checkCommands(now: now)
        checkOwedCloses(now: now)
        for problem in pings.overdue(now: now, tolerance: tolerance) { violate(.pingsAnsweredOnce, at: now, problem) }
    }

    /// A socket that went dead while open must be torn down within P + T of the later of
    /// its death and the open report (before the open, the connect timeout is in charge).
    private mutating func checkDeadPeer(now: VirtualClock.Instant) {
        guard let g = openGeneration else { return }
        checks += 2
        guard let dead = deadSince(ofLinkFor: g) else { return }
        let deadline = max(dead, openReportedAt) + detectionBound + tolerance
        guard now > deadline else { return }
        violate(
            .deadPeerDetected, at: now,
            "\(g)'s socket is dead since \(dead), still not torn down at \(now) (bound P + T = \(detectionBound)\(toleranceNote))"
        )
        if reportedPhase.isOpen {
            violate(.reportedStateIsTrue, at: now, "still reports open on \(g), whose socket is dead since \(dead)")
        }
    }

    /// At most one socket held; a closed generation's socket released within the grace.
    private mutating func checkHeldSockets(now: VirtualClock.Instant) {
        checks += 1
        let held = heldLinks
        guard !held.isEmpty else { return }
        var counted: [WorldSnapshot.HeldLink] = []
        for link in held {
            guard let g = link.generation, g != live else {
                counted.append(link)
                continue
            }
            // The close is queued behind the frames already written to the mailbox; a
            // stalled writer (delayed sends, one after another) holds it back as long.
            guard !link.writerStalled else { continue }
            let since = max(closedAt[g] ?? .start, link.openedAt ?? .start, link.lastStallEndedAt ?? .start)
            if now - since > Self.closeGrace + tolerance {
                violate(
                    .singleLiveTransport, at: now,
                    "socket \(link.id) of \(g) still held \(now - since) after its generation ended")
                counted.append(link)
            }
        }
        if counted.count > 1 {
            let names = counted.map { "socket \($0.id) (\($0.generation.map { "\($0)" } ?? "?"))" }
            violate(
                .singleLiveTransport, at: now,
                "\(counted.count) transports held at once: \(names.joined(separator: ", "))")
        }
    }

    /// Healthy, wanted and in the foreground for longer than the bound: must be open.
    private mutating func checkLiveness(now: VirtualClock.Instant) {
        checks += 1
        // A world that cannot tell whether it would let the manager in does not judge liveness.
        let welcomes = welcomesConnections ?? false
        let healthy = wanted && !stopped && foreground && welcomes
        guard healthy else {
            healthySince = nil
            return
        }
        var since = healthySince ?? now
        // A stalled writer holds back pings behind it; with T under a second that may
        // cost the connection, legitimately.
        if let stalled = lastSendDelayedAt, stalled > since { since = stalled }
        healthySince = since
        if now > since + livenessBound + tolerance, !reportedPhase.isOpen {
            violate(
                .eventuallyOpen, at: now,
                "healthy since \(since) but \(reportedPhase) at \(now) (bound \(livenessBound))")
        }
    }

    private mutating func checkCommands(now: VirtualClock.Instant) {
        checks += 1
        let (count, commands) = uncheckedCommands
        guard count > commandsChecked else { return }
        for command in commands where !commandTexts.insert(command.text).inserted {
            violate(
                .commandsAtMostOnce, at: now,
                "command \"\(command.text)\" reached the server again, on socket \(command.connection)")
        }
        commandsChecked = count
    }

    /// Something outside the manager changed the world: liveness restarts its clock.
    mutating func noteDisruption(now: VirtualClock.Instant) {
        if healthySince != nil { healthySince = now }
    }
}
