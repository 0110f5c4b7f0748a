import Testing

@testable import LivesimCLI

/// One deadline watches a whole exchange: a wait that outlives the limit ends it with its
/// reason; waits that each finish in time never do, however long the exchange runs.
@Suite("PeerDeadline: one watcher for every wait on a peer", .timeLimit(.minutes(1)))
struct PeerDeadlineTests {
    struct Stalled: Error {}

    @Test("a wait that outlives the limit ends the exchange with its reason, the wait cancelled")
    func expires() async throws {
        let deadline = PeerDeadline(limit: .milliseconds(50))
        let outcome = try await deadline.watching { () async throws -> Int in
            try await deadline.wait("no frame from the server") {
                // Ends only by cancellation: the watcher must cancel it.
                try await ContinuousClock().sleep(for: .seconds(3600))
                throw Stalled()
            }
        }
        guard case .expired(let reason) = outcome else {
            Issue.record("expected the deadline to expire, got \(outcome)")
            return
        }
        #expect(reason == "no frame from the server")
    }

    @Test("many short waits under a limit shorter than the whole exchange never expire")
    func rearmsPerWait() async throws {
        let deadline = PeerDeadline(limit: .seconds(2))
        let clock = ContinuousClock()
        let started = clock.now
        let outcome = try await deadline.watching { () async throws -> Int in
            var waits = 0
            // Until the exchange has lasted three limits, with every wait far inside one (a
            // millisecond's sleep, with room for a loaded machine).
            while clock.now - started < .seconds(6) {
                try await deadline.wait("a short wait") { try await clock.sleep(for: .milliseconds(1)) }
                waits += 1
            }
            return waits
        }
        guard case .finished(let waits) = outcome else {
            Issue.record("a deadline expired although every wait finished in time: \(outcome)")
            return
        }
        // Each wait ended within the limit and together they lasted three limits.
        #expect(waits >= 3)
    }

    @Test("the body's error ends the exchange as that error")
    func bodyError() async {
        let deadline = PeerDeadline(limit: .seconds(60))
        await #expect(throws: Stalled.self) {
            _ = try await deadline.watching { () async throws -> Int in throw Stalled() }
        }
    }
}
