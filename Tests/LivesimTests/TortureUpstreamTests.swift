import Foundation
import TestScheduling
import Testing

/// `livesim torture --upstream`: the proxy in front of a real server (our own `livesim serve`
/// or a Python peer), under a seed's faults, recorded and judged as torture judges the live
/// server; `livesim judge` on the recorded history reaches the run's verdict.
@Suite("livesim torture --upstream", .waitsOnPeers, .timeLimit(.minutes(5)))
struct TortureUpstreamTests {
    /// A reconnecting client that ignores close codes: after the server's 1008 it comes back,
    /// every quarter second until torture ends it. Its handshake may take 30 s: a stalled machine
    /// (CI's sanitized run once stalled for 14 s) must not turn its attempts into timeouts that
    /// never see the 1008.
    static let stubborn = """
        import sys, time
        from websockets.sync.client import connect
        while True:
            try:
                with connect(sys.argv[1], open_timeout=30) as ws:
                    ws.recv()
            except Exception:
                pass
            time.sleep(0.25)
        """

    /// The first lines of a recorded history, for a failure's message: what the judge read.
    static func head(of history: URL, lines: Int = 40) -> String {
        let text = (try? String(contentsOf: history, encoding: .utf8)) ?? "(no history at \(history.path))"
        return text.split(separator: "\n").prefix(lines).joined(separator: "\n")
    }

    /// The line "listening on ws://…" a `livesim serve` or `proxy` printed, as a URL.
    static func listeningURL(_ process: LivesimProcess) throws -> String {
        let line = try #require(
            process.standardOutputSoFar.split(separator: "\n").first { $0.hasPrefix("listening on ") })
        return String(line.dropFirst("listening on ".count))
    }

    @Test("our manager through the proxy in front of livesim serve passes a seeded run, and judge agrees with it")
    func managerPassesThroughProxy() throws {
        let livesim = try #require(LivesimProcess.executable).path
        let upstream = try LivesimProcess(["serve", "--duration", "120s"])
        defer { upstream.process.terminate() }
        #expect(upstream.waitForOutput(containing: "admin on", seconds: 15), "\(upstream.standardOutputSoFar)")
        let server = try Self.listeningURL(upstream) + "/live"
        let directory = try LivesimProcess.freshDirectory()
        let output = try LivesimProcess.run(
            [
                // Seed 64's storm over 10 s closes (1001 at 1.6 s, 4000 at 9.5 s) and adds latency, and
                // never stops the proxy accepting: a client that starts late still opens a socket.
                "torture", "--seed", "64", "--duration", "10s", "--tolerance", "2s",
                "--upstream", server, "--record", "run.jsonl", "--",
                "sh", "-c", "exec \"$0\" connect \"$LIVESIM_URL\" --topic feed", livesim,
            ], in: directory, within: 90)
        #expect(output.status == 0, "\(output.standardOutput)\n\(output.standardError)")
        #expect(output.standardOutput.contains("in front of \(server)"), "\(output.standardOutput)")
        #expect(output.standardOutput.contains("every rule held"), "\(output.standardOutput)")
        let history = try String(contentsOf: directory.appending(path: "run.jsonl"), encoding: .utf8)
        let header = try #require(history.split(separator: "\n").first)
        #expect(header.contains(#""version":2"#) && header.contains(#""mode":"torture""#), "\(header)")
        #expect(header.contains(#""upstream":"\#(server)""#), "\(header)")
        #expect(header.contains(#""faults":{"seed":64,"#), "\(header)")
        #expect(history.contains(#""e":"attempt","conn":1,"client":"torture""#), "\(history.prefix(2000))")
        // The proxy records what the client sent on its link: the subscribe frame, with its words.
        #expect(
            history.contains(#""e":"open","conn":1"#) && history.contains(#"\"topic\":\"feed\""#),
            "\(history.prefix(2000))")
        #expect(history.contains(#""e":"fault""#), "the schedule's faults are recorded")
        let judged = try LivesimProcess.run(["judge", "run.jsonl", "--tolerance", "2s"], in: directory, within: 60)
        #expect(judged.status == 0, "\(judged.standardOutput)\(judged.standardError)")
        let summary = judged.standardOutput.split(separator: "\n").last.map(String.init) ?? ""
        #expect(!summary.isEmpty && output.standardOutput.contains(summary), "\(summary)\n\(output.standardOutput)")
    }

    @Test("a client that comes back after the upstream's terminal 1008 is caught through the proxy; our manager is not")
    func terminalCloseThroughProxy() throws {
        let peer = try WebSocketPeer("terminal")
        let livesim = try #require(LivesimProcess.executable).path
        let directory = try LivesimProcess.freshDirectory()
        // Seed 20's swarm schedule has no fault in its first 15 s: the upstream's own close is the only one.
        let stubborn = try LivesimProcess.run(
            [
                "torture", "--seed", "20", "--fault-profile", "swarm", "--duration", "8s", "--upstream", peer.url,
                "--record", "stubborn.jsonl", "--", "python3", "-c", Self.stubborn, "{url}",
            ], in: directory, within: 90)
        let recorded = Self.head(of: directory.appending(path: "stubborn.jsonl"))
        #expect(stubborn.status == 1, "\(stubborn.standardOutput)\n\(stubborn.standardError)\n\(recorded)")
        #expect(stubborn.standardOutput.contains("wire-quiet-after-stop (client torture)"), "\(recorded)")
        #expect(stubborn.standardOutput.contains("--upstream \(peer.url)"), "the rerun line keeps the upstream")
        let judged = try LivesimProcess.run(["judge", "stubborn.jsonl"], in: directory, within: 60)
        #expect(judged.status == 1, "judge disagrees with the run that recorded it: \(judged.standardOutput)")
        #expect(judged.standardOutput.contains("wire-quiet-after-stop"), "\(judged.standardOutput)")
        let manager = try LivesimProcess.run(
            [
                "torture", "--seed", "20", "--fault-profile", "swarm", "--duration", "4s", "--upstream", peer.url,
                "--record", "manager.jsonl", "--", livesim, "connect", "{url}",
            ], in: directory, within: 90)
        #expect(manager.status == 0, "\(manager.standardOutput)\n\(manager.standardError)")
        let history = try String(contentsOf: directory.appending(path: "manager.jsonl"), encoding: .utf8)
        #expect(history.contains(#""e":"server-close","conn":1,"code":1008"#), "\(history)")
    }

    @Test("an upstream that cannot be reached: exit 2 naming it before the command starts; a bad URL: exit 64")
    func unreachableUpstream() throws {
        let directory = try LivesimProcess.freshDirectory()
        let output = try LivesimProcess.run(
            [
                "torture", "--seed", "1", "--duration", "2s", "--upstream", "ws://127.0.0.1:1/live", "--", "sh", "-c",
                "touch started",
            ], in: directory, within: 30)
        #expect(output.status == 2, "\(output.standardError)")
        #expect(
            output.standardError.contains("cannot reach the upstream ws://127.0.0.1:1/live: error ECONNREFUSED"),
            "\(output.standardError)")
        #expect(!FileManager.default.fileExists(atPath: directory.appending(path: "started").path))
        let bad = try LivesimProcess.run(
            ["torture", "--seed", "1", "--duration", "2s", "--upstream", "http://x/", "--", "true"], within: 30)
        #expect(bad.status == 64, "\(bad.standardError)")
    }

    @Test("--list-faults with --upstream leaves out what only the live server can do")
    func proxySchedule() throws {
        let words = ["torture", "--seed", "7", "--duration", "10m", "--fault-interval", "5s", "--list-faults"]
        let live = try LivesimProcess.run(words, within: 30)
        let proxied = try LivesimProcess.run(words + ["--upstream", "ws://127.0.0.1:9/"], within: 30)
        #expect(live.status == 0 && proxied.status == 0, "\(live.standardError)\(proxied.standardError)")
        #expect(live.standardOutput.contains("restart"), "\(live.standardOutput.prefix(500))")
        #expect(!proxied.standardOutput.contains("restart") && !proxied.standardOutput.contains("idle"))
        // Every action the proxy keeps is the live schedule's, at the same instant.
        let liveLines = Set(live.standardOutput.split(separator: "\n"))
        let proxiedLines = proxied.standardOutput.split(separator: "\n")
        #expect(!proxiedLines.isEmpty && proxiedLines.allSatisfy(liveLines.contains))
    }
}
