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
        let outcome = try await deadline.watching { () async throws -> Duration in
            // Until the exchange has lasted three limits and held at least three waits, each
            // far inside one limit (a millisecond's sleep). Counting from inside the body, and
            // requiring both, keeps a loaded machine's stall (CI once held this task for six
            // seconds before its first wait ended) from ending the loop after a single wait.
            let started = clock.now
            var waits = 0
            while waits < 3 || clock.now - started < .seconds(6) {
                try await deadline.wait("a short wait") { try await clock.sleep(for: .milliseconds(1)) }
                waits += 1
            }
            return clock.now - started
        }
        // The verdict under test: one deadline over an exchange of three limits never
        // expired, because each wait re-armed it.
        guard case .finished(let lasted) = outcome else {
            Issue.record("a deadline expired although every wait finished in time: \(outcome)")
            return
        }
        #expect(lasted >= .seconds(6))
    }

    @Test("the body's error ends the exchange as that error")
    func bodyError() async {
        let deadline = PeerDeadline(limit: .seconds(60))
        await #expect(throws: Stalled.self) {
            _ = try await deadline.watching { () async throws -> Int in throw Stalled() }
        }
    }
}
