import Foundation
import TestScheduling
import Testing

/// `livesim proxy --record`: the history of two clients through the proxy while a fault is
/// aimed at one of them, judged by `livesim judge`.
@Suite("livesim proxy --record", .waitsOnPeers, .timeLimit(.minutes(3)))
struct ProxyRecordTests {
    @Test(
        "a freeze aimed at client a is recorded with its name: a gives its socket up, b keeps its own, and judge passes both"
    )
    func freezeOfOneRecorded() throws {
        let upstream = try LiveServeProcess()
        let directory = try LivesimProcess.freshDirectory()
        let proxy = try LivesimProcess(
            ["proxy", "--upstream", upstream.url, "--record", "proxy.jsonl", "--duration", "60s"], in: directory)
        defer { proxy.process.terminate() }
        #expect(proxy.waitForOutput(containing: "admin on", seconds: 15), "\(proxy.standardOutputSoFar)")
        let lines = proxy.standardOutputSoFar.split(separator: "\n")
        let listening = try #require(lines.first { $0.hasPrefix("listening on ") }).dropFirst("listening on ".count)
        let adminPort = try #require(
            lines.first { $0.hasPrefix("admin on ") }?.split(separator: ":").last.flatMap { UInt16($0) })
        // Heartbeats of 300 ms + 300 ms: a frozen socket is given up within about 0.6 s.
        func client(_ name: String) throws -> LivesimProcess {
            try LivesimProcess(
                [
                    "connect", "\(listening)/live?client=\(name)", "--topic", "feed", "--ping-interval", "300ms",
                    "--ping-timeout", "300ms", "--duration", "30s",
                ], in: directory)
        }
        let a = try client("a")
        let b = try client("b")
        defer {
            a.process.terminate()
            b.process.terminate()
        }
        #expect(
            a.waitForOutput(containing: "phase open", seconds: 20)
                && b.waitForOutput(containing: "phase open", seconds: 20))
        #expect(try LiveServeProcess.admin("/freeze?client=a", port: adminPort) == "ok")
        // a notices (its heartbeat goes unanswered) and gives the frozen socket up.
        #expect(a.waitForOutput(containing: "heartbeat missed", seconds: 20), "\(a.standardOutputSoFar)")
        usleep(5_000_000)
        #expect(try LiveServeProcess.admin("/thaw?client=a", port: adminPort) == "ok")
        usleep(1_000_000)
        proxy.process.interrupt()
        let stopped = proxy.finish(within: 20)
        #expect(stopped.status == 0, "\(stopped.standardError)")
        #expect(!b.standardOutputSoFar.contains("heartbeat missed"), "b was touched: \(b.standardOutputSoFar)")
        let history = try String(contentsOf: directory.appending(path: "proxy.jsonl"), encoding: .utf8)
        #expect(history.contains(#""e":"fault","fault":"freeze","client":"a""#), "\(history.prefix(3000))")
        #expect(history.contains(#""reason":"heartbeat missed""#))
        #expect(history.contains(#""e":"end""#))
        // A dead-peer bound of 1 s (plus the tolerance): a met it; b's socket was never frozen. Read
        // as the whole server's, the same freeze would hold b's socket dead for 5 s, and b would break it.
        try #"{"deadPeerBound": "1s"}"#.write(
            to: directory.appending(path: "claims.json"), atomically: true, encoding: .utf8)
        let judged = try LivesimProcess.run(
            ["judge", "proxy.jsonl", "--claims", "claims.json", "--tolerance", "2s"], in: directory, within: 60)
        #expect(judged.status == 0, "\(judged.standardOutput)\(judged.standardError)")
        // Both clients were judged (in the order they first attempted, which the test does not fix).
        #expect(
            judged.standardOutput.contains(#"2 client(s) ["a", "b"]"#)
                || judged.standardOutput.contains(#"2 client(s) ["b", "a"]"#), "\(judged.standardOutput)")
    }
}
