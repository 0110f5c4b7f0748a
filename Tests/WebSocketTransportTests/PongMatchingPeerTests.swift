import Foundation
import LiveConnection
import TestScheduling
import Testing
import WebSocketTransport

/// Which pings a pong completes, against `pong_server.py`, a server that pongs only when told:
/// the ping whose payload it echoes and every ping sent before that one (RFC 6455 §5.5.3 lets
/// a server answer only the latest of several), never one it does not echo. The tests see only
/// the public API, whether `ping()` completes, so they hold for any way of matching pongs.
@Suite(
    "Pong matching against a server that pongs on command", .waitsOnPeers, PeerServer.enabledTrait,
    .timeLimit(.minutes(2)))
struct PongMatchingPeerTests {
    @Test("an unsolicited pong does not complete the waiting ping; its own pong does")
    func unsolicitedPong() async throws {
        try await Self.withPeer { peer in
            let first = peer.ping()
            #expect(await peer.command("wait 1") == "pings 1")
            #expect(await peer.command("unsolicited") == "ponged unsolicited")
            #expect(
                await first.progress(within: peerQuietPeriod) == .waiting,
                "a pong that echoes no ping completed the waiting one")
            #expect(await peer.command("pong 1") == "ponged 1")
            #expect(await first.progress(within: peerReplyTimeout) == .answered)
        }
    }

    @Test("a stale pong, echoing a ping already answered, does not complete the ping waiting now")
    func stalePong() async throws {
        try await Self.withPeer { peer in
            let first = peer.ping()
            #expect(await peer.command("pong 1") == "ponged 1")
            #expect(await first.progress(within: peerReplyTimeout) == .answered)
            let second = peer.ping()
            #expect(await peer.command("wait 2") == "pings 2")
            #expect(await peer.command("pong 1") == "ponged 1")
            #expect(
                await second.progress(within: peerQuietPeriod) == .waiting,
                "the first ping's pong, sent again, completed the second ping")
            #expect(await peer.command("pong 2") == "ponged 2")
            #expect(await second.progress(within: peerReplyTimeout) == .answered)
        }
    }

    @Test("a pong completes its own ping and every earlier one, never a later one")
    func pongCompletesEarlierPings() async throws {
        try await Self.withPeer { peer in
            // One at a time, so the server numbers the pings in the order they were made.
            let first = peer.ping()
            #expect(await peer.command("wait 1") == "pings 1")
            let second = peer.ping()
            #expect(await peer.command("wait 2") == "pings 2")
            let third = peer.ping()
            #expect(await peer.command("wait 3") == "pings 3")
            #expect(await peer.command("pong 1") == "ponged 1")
            #expect(await first.progress(within: peerReplyTimeout) == .answered)
            #expect(
                await second.progress(within: peerQuietPeriod) == .waiting,
                "the first ping's pong completed the second")
            #expect(await third.progress(within: .zero) == .waiting, "the first ping's pong completed the third")
            // Only the latest is answered, as the RFC allows: it vouches for the second too.
            #expect(await peer.command("pong 3") == "ponged 3")
            #expect(
                await second.progress(within: peerReplyTimeout) == .answered,
                "the third ping's pong left the second ping waiting")
            #expect(await third.progress(within: peerReplyTimeout) == .answered)
        }
    }

    /// Opens a connection to the shared `pong_server.py`, runs `body` with it and closes it,
    /// which also fails any ping the body left waiting.
    static func withPeer(_ body: (Peer) async throws -> Void) async throws {
        let server = try await SharedPeers.pong
        let connection = try await WebSocketTransport(configuration: .init(connectTimeout: peerConnectTimeout)).open(
            Endpoint(url: server.url("/")))
        do {
            try await body(Peer(connection: connection))
        } catch {
            await connection.close(code: .normal, reason: "")
            throw error
        }
        await connection.close(code: .normal, reason: "")
    }

    /// A connection to `pong_server.py` and the two things a test does with it.
    struct Peer {
        let connection: WebSocketConnection

        /// Starts a ping; the server numbers it by arrival (`wait N` says it has arrived).
        func ping() -> PingProbe { PingProbe(connection) }

        /// Sends a command and returns the server's reply, or what came instead. No task receives between commands:
        /// this reads up to the reply, so the pong the server sent before it has been handled
        /// (and any ping it completes already resumed) when this returns.
        func command(_ text: String) async -> String {
            do throws(TransportError) {
                try await connection.send(.text(text))
            } catch {
                return "send failed: \(error)"
            }
            let reply = await within(peerReplyTimeout) { [connection] () async -> String in
                do throws(TransportError) {
                    switch try await connection.receive() {
                    case .message(.text(let reply)): return reply
                    case let other: return "not a reply: \(other)"
                    }
                } catch {
                    return "receive failed: \(error)"
                }
            }
            return reply ?? "no reply within \(peerReplyTimeout)"
        }
    }
}

/// How far a ``PingProbe``'s ping has got.
enum PingProgress: Equatable, Sendable {
    case waiting
    case answered
    case failed(TransportError)
}

/// One `ping()` running in a task of its own, so a test can look at it while it waits.
///
/// Awaiting a task's value cannot be given up at a deadline, so the task records how its ping
/// ended and ``progress(within:)`` looks at the record until it changes or time is up.
final class PingProbe: Sendable {
    private let recorded = Locked(PingProgress.waiting)

    /// Starts the ping on the peer tests' own threads: a ping a pong resumes runs at once there,
    /// where on a cooperative pool busy with other suites it could wait past the quiet period.
    init(_ connection: WebSocketConnection) {
        let recorded = self.recorded
        Task(executorPreference: OwnThreads.peers) {
            do throws(TransportError) {
                try await connection.ping()
                recorded.set(.answered)
            } catch {
                recorded.set(.failed(error))
            }
        }
    }

    /// How far the ping has got once it has completed or `limit` has passed, whichever is first.
    func progress(within limit: Duration) async -> PingProgress {
        let deadline = ContinuousClock.now + limit
        while recorded.value == .waiting, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        return recorded.value
    }
}
