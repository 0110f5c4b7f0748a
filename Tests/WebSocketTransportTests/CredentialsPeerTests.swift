import Foundation
import LiveConnection
import TestScheduling
import Testing

import typealias LiveConnection.Mutex

@testable import WebSocketTransport

/// Credentials fetched before every connect (`credentialsTiming = .beforeEveryConnect`),
/// through the real transport against the Python echo server, which shows each handshake's
/// request headers (`!headers`): the provider is asked once per attempt, and every handshake
/// carries a token fetched for it (fresh: never one an earlier handshake carried), across a
/// reset and a 4001.
@Suite("Credentials before every connect against a real server", .waitsOnPeers, PeerServer.enabledTrait)
struct CredentialsPeerTests {
    @Test("every handshake carries a token fetched for it, fresh each time, over a reset and a 4001")
    func freshTokenPerHandshake() async throws {
        let server = try await PeerServer.start("echo_server.py")
        defer { server.stop() }
        let calls = Mutex(0)
        var configuration = RealManager.configuration(quietHeartbeat: true)
        configuration.credentialsTiming = .beforeEveryConnect
        configuration.resume = false  // nothing but the tests' own frames comes back
        let log = try await RealManager.withManager(
            configuration: configuration,
            credentials: {
                let call = calls.withLock { calls in
                    calls += 1
                    return calls
                }
                return [Endpoint.Header("Authorization", "Bearer \(call)")]
            }
        ) { manager, log in
            await manager.connect(to: server.url("/"))
            // Each round: once a connection is open, ask the server for the headers it received
            // on it, then end it the round's way. (A loaded machine may fail an attempt, say
            // with ETIMEDOUT: that attempt fetched a token too, so the numbers are not assumed.)
            var mark = 0
            for ending in ["!reset", "!close 4001 token expired", nil] {
                await log.wait(from: mark, for: RealManager.isOpen)
                let asked = await log.count
                try await manager.send(text: "!headers")
                await log.wait(from: asked) { event in
                    guard case .message(.text(let text), _) = event else { return false }
                    return text.contains("\"headers\"")
                }
                guard let ending else { break }
                mark = await log.count  // the next open after this is the next connection's
                try? await manager.send(text: ending)
            }
        }
        let tokens = try await log.messages.compactMap { message, _ -> Int? in
            guard case .text(let text) = message, text.contains("\"headers\"") else { return nil }
            let answer = try JSONDecoder().decode(HeadersAnswer.self, from: Data(text.utf8))
            let value = answer.headers.first { $0.first?.lowercased() == "authorization" }?.last
            return value.flatMap { Int($0.dropFirst("Bearer ".count)) }
        }
        let phases = await log.phases
        let attempts = phases.filter { if case .connecting = $0 { true } else { false } }.count
        #expect(tokens.count == 3, "three connections, each with its token: \(tokens)")
        #expect(tokens == tokens.sorted() && Set(tokens).count == tokens.count, "fresh each time: \(tokens)")
        #expect(calls.withLock { $0 } == attempts, "one fetch per attempt: \(calls.withLock { $0 }), \(phases)")
        #expect(tokens.last == calls.withLock { $0 }, "the last connection carries the newest token: \(tokens)")
        #expect(phases.filter(\.isOpen).count == 3, "\(phases)")
    }

    /// The echo server's answer to `!headers`: the request headers as [name, value] pairs.
    struct HeadersAnswer: Decodable {
        var headers: [[String]]
    }
}
