import Foundation
import LiveConnection
import TestScheduling
import Testing
import WebSocketTransport

/// Which pongs `receive()` reports, against `pong_server.py`, a server that pongs only when
/// told: a pong that echoes one of our outstanding pings, reported once for it and every ping
/// sent before it (RFC 6455 §5.5.3 lets a server answer only the latest of several), never one
/// that echoes no ping of ours or one already answered. The tests see only the public API.
@Suite(
    "Pong matching against a server that pongs on command", .waitsOnPeers, PeerServer.enabledTrait,
    .timeLimit(.minutes(2)))
struct PongMatchingPeerTests {
    @Test("an unsolicited pong is not reported; the ping's own pong is")
    func unsolicitedPong() async throws {
        try await Self.withPeer { peer in
            try await peer.connection.ping(1)
            #expect(await peer.command("wait 1") == "pings 1")
            #expect(await peer.command("unsolicited") == "ponged unsolicited")
            #expect(peer.pongs == [], "a pong that echoes no ping of ours was reported")
            #expect(await peer.command("pong 1") == "ponged 1")
            #expect(peer.pongs == [1])
        }
    }

    @Test("a stale pong, echoing a ping already answered, is not reported again")
    func stalePong() async throws {
        try await Self.withPeer { peer in
            try await peer.connection.ping(1)
            #expect(await peer.command("pong 1") == "ponged 1")
            #expect(peer.pongs == [1])
            try await peer.connection.ping(2)
            #expect(await peer.command("wait 2") == "pings 2")
            #expect(await peer.command("pong 1") == "ponged 1")
            #expect(peer.pongs == [1], "the first ping's pong, sent again, was reported again")
            #expect(await peer.command("pong 2") == "ponged 2")
            #expect(peer.pongs == [1, 2])
        }
    }

    @Test("a pong answers its own ping and every earlier one, never a later one")
    func pongCompletesEarlierPings() async throws {
        try await Self.withPeer { peer in
            for number: UInt64 in 1...3 {
                try await peer.connection.ping(number)
                #expect(await peer.command("wait \(number)") == "pings \(number)")
            }
            #expect(await peer.command("pong 1") == "ponged 1")
            #expect(peer.pongs == [1], "the first ping's pong answers only the first")
            // Only the latest is answered, as the RFC allows: it vouches for the second too.
            #expect(await peer.command("pong 3") == "ponged 3")
            #expect(peer.pongs == [1, 3])
            #expect(await peer.command("pong 2") == "ponged 2")
            #expect(peer.pongs == [1, 3], "the second ping was answered by the third's pong already")
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

    /// A connection to `pong_server.py`, and the pongs its `receive()` reported so far.
    struct Peer {
        let connection: WebSocketConnection
        private let reported = Locked<[UInt64]>([])

        init(connection: WebSocketConnection) { self.connection = connection }

        /// The numbers of the pongs reported, in order.
        var pongs: [UInt64] { reported.value }

        /// Sends a command and returns the server's reply, or what came instead. This reads up
        /// to the reply, so the pongs the server sent before it have been reported when this
        /// returns.
        func command(_ text: String) async -> String {
            do throws(TransportError) {
                try await connection.send(.text(text))
            } catch {
                return "send failed: \(error)"
            }
            let reply = await within(peerReplyTimeout) { [connection, reported] () async -> String in
                do throws(TransportError) {
                    while true {
                        switch try await connection.receive() {
                        case .message(.text(let reply)): return reply
                        case .pong(let number): reported.withLock { $0.append(number) }
                        case let other: return "not a reply: \(other)"
                        }
                    }
                } catch {
                    return "receive failed: \(error)"
                }
            }
            return reply ?? "no reply within \(peerReplyTimeout)"
        }
    }
}
