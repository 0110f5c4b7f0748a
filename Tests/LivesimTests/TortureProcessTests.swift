import Foundation
import TestScheduling
import Testing

/// `livesim torture` and `livesim judge` as a user runs them: a real client process under
/// real faults, its history judged; a command that cannot start; nothing left running.
@Suite("livesim torture and judge as processes", .waitsOnPeers, .timeLimit(.minutes(5)))
struct TortureProcessTests {
    @Test("our manager (livesim connect, URL from LIVESIM_URL) passes a torture run, and judge agrees with it")
    func managerPasses() throws {
        let livesim = try #require(LivesimProcess.executable).path
        let directory = try LivesimProcess.freshDirectory()
        let output = try LivesimProcess.run(
            [
                "torture", "--seed", "2", "--duration", "4s", "--fault-interval", "2s", "--record", "run.jsonl", "--",
                "sh", "-c", "exec \"$0\" connect \"$LIVESIM_URL\" --topic feed", livesim,
            ], in: directory, within: 60)
        #expect(output.status == 0, "\(output.standardOutput)\n\(output.standardError)")
        #expect(output.standardOutput.contains("every rule held"), "\(output.standardOutput)")
        let judged = try LivesimProcess.run(["judge", "run.jsonl"], in: directory, within: 60)
        #expect(judged.status == 0, "\(judged.standardOutput)\(judged.standardError)")
        #expect(judged.standardOutput.contains("1 client(s) [\"torture\"]"), "\(judged.standardOutput)")
    }

    @Test("a client that reconnects in a tight loop breaks wire-attempt-rate; the rerun line and history are printed")
    func hotLoopFails() throws {
        let script = """
            import sys, time
            from websockets.sync.client import connect
            end = time.monotonic() + 10
            while time.monotonic() < end:
                try:
                    connect(sys.argv[1], open_timeout=2).close()
                except Exception:
                    pass
            """
        let directory = try LivesimProcess.freshDirectory()
        let output = try LivesimProcess.run(
            [
                "torture", "--seed", "5", "--duration", "3s", "--record", "hot.jsonl", "--", "python3", "-c", script,
                "{url}",
            ],
            in: directory, within: 60)
        #expect(output.status == 1, "\(output.standardOutput)\n\(output.standardError)")
        #expect(output.standardOutput.contains("wire-attempt-rate (client torture)"), "\(output.standardOutput)")
        #expect(output.standardOutput.contains("history: hot.jsonl"), "\(output.standardOutput)")
        #expect(
            output.standardOutput.contains("rerun: livesim torture --seed 5 --duration 3s -- python3 -c"),
            "\(output.standardOutput)")
        let judged = try LivesimProcess.run(["judge", "hot.jsonl"], in: directory, within: 60)
        #expect(judged.status == 1, "judge disagrees with the run that recorded it: \(judged.standardOutput)")
        #expect(judged.standardOutput.contains("wire-attempt-rate"))
    }

    @Test(
        "each real client in Traces/real/clients runs unmodified under torture and is seen connecting",
        arguments: ["websockets_connect", "websocket_client_run_forever", "autobahn_twisted_reconnecting"])
    func realClientRuns(name: String) throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appending(path: "Traces/real/clients/\(name).py").path
        let directory = try LivesimProcess.freshDirectory()
        // Seed 4's swarm schedule has no fault in its first 4 s: a healthy server, one connection.
        let output = try LivesimProcess.run(
            [
                "torture", "--seed", "4", "--fault-profile", "swarm", "--duration", "4s", "--record", "run.jsonl", "--",
                "python3", script, "{url}",
            ], in: directory, within: 60)
        #expect(output.status == 0, "\(output.standardOutput)\n\(output.standardError)")
        let history = try String(contentsOf: directory.appending(path: "run.jsonl"), encoding: .utf8)
        #expect(history.contains(#""e":"open""#), "no connection opened: \(history)")
        #expect(output.standardOutput.contains("1 client(s) [\"torture\"]"), "\(output.standardOutput)")
    }

    @Test("judge with --claims after the history: the client's own claim replaces the default one")
    func judgeWithClaims() throws {
        let real = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appending(path: "Traces/real").path
        let output = try LivesimProcess.run(
            [
                "judge", "\(real)/websocket-client-seed117.jsonl", "--claims",
                "\(real)/websocket-client.claims.json",
            ], within: 60)
        #expect(output.status == 1, "\(output.standardError)")
        #expect(output.standardOutput.contains("1 violation(s) of wire-quiet-after-stop"), "\(output.standardOutput)")
        let bad = try LivesimProcess.run(
            ["judge", "\(real)/websocket-client-seed117.jsonl", "--claims", "\(real)/README.md"], within: 60)
        #expect(bad.status == 65)
        #expect(bad.standardError.contains("README.md: not JSON"), "\(bad.standardError)")
    }

    @Test("a command that cannot start: exit 2 and a one-line reason; nothing is judged")
    func commandCannotStart() throws {
        let output = try LivesimProcess.run(
            ["torture", "--seed", "1", "--duration", "2s", "--", "no-such-command-livesim-test"], within: 30)
        #expect(output.status == 2, "\(output.standardError)")
        #expect(output.standardError.contains("cannot start no-such-command-livesim-test"), "\(output.standardError)")
    }

    @Test("every process the command started is ended with it")
    func noChildOutlives() throws {
        let directory = try LivesimProcess.freshDirectory()
        let output = try LivesimProcess.run(
            [
                "torture", "--seed", "1", "--duration", "1s", "--", "sh", "-c",
                "sleep 300 & echo $! > grandchild.pid; sleep 300",
            ],
            in: directory, within: 60)
        #expect(output.status == 0 || output.status == 1, "\(output.standardError)")
        let text = try String(contentsOf: directory.appending(path: "grandchild.pid"), encoding: .utf8)
        let pid = try #require(Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)))
        // Gone, or a zombie waiting for a parent that no longer runs anything.
        let state = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8))?.split(separator: " ")
        #expect(state == nil || state![2] == "Z", "the command's background process \(pid) outlived the run")
    }

    @Test("judge: a malformed history names the file and line (exit 65); a missing file too")
    func judgeMalformed() throws {
        let directory = try LivesimProcess.freshDirectory()
        try """
        {"history":"livesim-wire","version":1,"origin":"x","server":{},"faults":null}
        {"t":1,"e":"open"}
        """.write(to: directory.appending(path: "bad.jsonl"), atomically: true, encoding: .utf8)
        let bad = try LivesimProcess.run(["judge", "bad.jsonl"], in: directory, within: 30)
        #expect(bad.status == 65)
        #expect(bad.standardError.contains("bad.jsonl:2: \"conn\" is missing"), "\(bad.standardError)")
        let missing = try LivesimProcess.run(["judge", "nothing.jsonl"], in: directory, within: 30)
        #expect(missing.status == 65)
        #expect(missing.standardError.contains("nothing.jsonl: cannot open"), "\(missing.standardError)")
    }
}
