import Foundation
import TestScheduling
import Testing

/// The `livesim` commands that reach OpenSSL and the sockets, run as a user runs them.
///
/// CI runs the suite in a debug and a release build; in the release run these are the
/// release-mode smoke test. A use-after-free once made `--ca` fail only in release (the
/// trust store's PEM was parsed from freed memory), which no debug run could see.
@Suite("livesim transport commands", .waitsOnPeers, PeerServer.enabledTrait, .timeLimit(.minutes(1)))
struct LivesimTransportCommandTests {
    /// Runs `livesim arguments…` (the package's one runner, `LivesimProcess`) on a thread of its
    /// own, off the cooperative pool, terminating it after 30 s.
    private func livesim(_ arguments: [String]) async throws -> LivesimProcess.Output {
        try await offPool { try LivesimProcess.run(arguments, within: 30) }
    }

    /// Runs `body` against the Python echo server over TLS, its certificate from a fresh test CA.
    private func withTLSEchoServer(
        _ body: (TestCertificates, PeerServer) async throws -> LivesimProcess.Output
    ) async throws -> LivesimProcess.Output {
        let certificates = try await TestCertificates.make()
        defer { certificates.remove() }
        let server = try await PeerServer.start(
            "echo_server.py", ["--tls", certificates.path("good.pem"), certificates.path("good.key")])
        defer { server.stop() }
        return try await body(certificates, server)
    }

    @Test("echo-client over wss:// trusts the CA given with --ca, and echoes")
    func echoClientWithCA() async throws {
        let run = try await withTLSEchoServer { certificates, server in
            try await livesim([
                "echo-client", "wss://127.0.0.1:\(server.port)/hello", "--ca", certificates.path("ca.pem"),
            ])
        }
        #expect(run.status == 0, "\(run)")
        #expect(run.standardOutput.contains("closed 1000 echoed"), "\(run)")
    }

    @Test("echo-client over wss:// without the CA refuses the server, saying why")
    func echoClientWithoutCA() async throws {
        let run = try await withTLSEchoServer { _, server in
            try await livesim(["echo-client", "wss://127.0.0.1:\(server.port)/hello"])
        }
        #expect(run.status == 1, "\(run)")
        #expect(run.standardOutput.contains("certificate verification failed"), "\(run)")
    }

    @Test("echo-client over ws:// echoes")
    func echoClientPlain() async throws {
        let server = try await SharedPeers.echo
        let run = try await livesim(["echo-client", "ws://127.0.0.1:\(server.port)/hello"])
        #expect(run.status == 0, "\(run)")
        #expect(run.standardOutput.contains("closed 1000 echoed"), "\(run)")
    }

    @Test("connect over wss:// with --ca opens and stays open for its duration")
    func connectWithCA() async throws {
        let run = try await withTLSEchoServer { certificates, server in
            try await livesim([
                // Long enough for a TLS handshake under AddressSanitizer on a loaded machine
                // (neither 2 s nor 6 s was: CI saw the duration end while still connecting),
                // and a pong deadline a loaded machine keeps.
                "connect", "wss://127.0.0.1:\(server.port)/", "--ca", certificates.path("ca.pem"), "--duration", "12",
                "--ping-interval", "1", "--ping-timeout", "4",
            ])
        }
        #expect(run.status == 0, "\(run)")
        let phases = run.standardOutput.split(separator: "\n").map { $0.dropFirst(9) }
        #expect(phases.first == "phase idle", "\(run)")
        #expect(phases.contains { $0.hasPrefix("phase open") }, "\(run)")
        // Pings every second with a 4 s deadline: a missed pong would show as waiting.
        #expect(!phases.contains { $0.hasPrefix("phase waiting") }, "\(run)")
    }

    /// The backoff-reset rule over a real socket: a server that completes every handshake
    /// and closes at once (or refuses with 401 forever) must be backed off from as the
    /// policy says. Before the rule, every open reset the count: 44 connections in 3 s
    /// against 4001, and "attempt=2" forever against 1011.
    @Test(
        "connect against a server that accepts then closes at once keeps to the policy's attempt rate",
        arguments: ["/close-at-once/4001", "/close-at-once/1011", "/close-at-once/1000", "/reject/401"])
    func hostileServerIsBackedOffFrom(path: String) async throws {
        let server = try await SharedPeers.echo
        let run = try await livesim([
            "connect", "ws://127.0.0.1:\(server.port)\(path)", "--duration", "4", "--max-attempts", "1000000",
        ])
        #expect(run.status == 0, "\(run)")
        let attempts = run.standardOutput.split(separator: "\n").compactMap { line -> Int? in
            guard let range = line.range(of: "phase connecting attempt=") else { return nil }
            return Int(line[range.upperBound...])
        }
        // The bound from the published formula (full jitter, base 1 s, cap 30 s: the n-th wait
        // is U(0, min(30, 2^(n−1)) s); a refresh waits for one failure fewer, so 4001 and 401
        // shift the waits by one, starting at 0). Thirteen attempts need twelve waits within
        // 4 s, among them waits drawn from U(0, 16 s) and U(0, 30 s) five times or more; each
        // stays under 4 s with probability 1/4 and 2/15, so together below 2·10⁻⁵: a correct
        // manager makes at most 12 attempts, and one whose count restarts on open (44 in 3 s
        // before the backoff-reset rule) makes many more.
        #expect(attempts.count >= 2, "\(run)")
        #expect(attempts == Array(1...max(attempts.count, 1)), "the count never restarts: \(attempts)")
        #expect(attempts.count <= 12, "\(attempts.count) attempts in 4 s: \(run)")
    }

    @Test("connect with a URL that can never work is refused before any attempt, saying why")
    func permanentErrorRefused() async throws {
        let run = try await livesim(["connect", "ws://127.0.0.1:99999/", "--duration", "5"])
        #expect(run.status == 64, "\(run)")
        #expect(run.standardError.contains("a port in 1...65535 (got ws://127.0.0.1:99999/)"), "\(run)")
        // Nothing was tried: the manager that would stop on it is PermanentURLErrorTests'.
        #expect(!run.standardOutput.contains("phase connecting"), "\(run)")
    }
}
