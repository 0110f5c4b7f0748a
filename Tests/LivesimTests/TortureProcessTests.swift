import Foundation
import TestScheduling
import Testing

/// `livesim torture` and `livesim judge` as a user runs them: a real client process under
/// real faults, its history judged; a command that cannot start; nothing left running.
@Suite("livesim torture and judge as processes", .waitsOnPeers, .timeLimit(.minutes(5)))
struct TortureProcessTests {
    // Real processes on a loaded machine start late and run slowly: these tests assert verdicts
    // that do not depend on how fast the client is (a slow client sees fewer faults, never a
    // different rule broken), never timings.

    @Test("our manager (livesim connect, URL from LIVESIM_URL) passes a torture run, and judge agrees with it")
    func managerPasses() throws {
        let livesim = try #require(LivesimProcess.executable).path
        let directory = try LivesimProcess.freshDirectory()
        let output = try LivesimProcess.run(
            [
                // A loaded machine fires timers late: the tolerance says by how much at most.
                "torture", "--seed", "2", "--duration", "6s", "--fault-interval", "2s", "--tolerance", "2s",
                "--record", "run.jsonl", "--",
                "sh", "-c", "exec \"$0\" connect \"$LIVESIM_URL\" --topic feed", livesim,
            ], in: directory, within: 90)
        #expect(output.status == 0, "\(output.standardOutput)\n\(output.standardError)")
        #expect(output.standardOutput.contains("every rule held"), "\(output.standardOutput)")
        let judged = try LivesimProcess.run(["judge", "run.jsonl", "--tolerance", "2s"], in: directory, within: 60)
        #expect(judged.status == 0, "\(judged.standardOutput)\(judged.standardError)")
        // The same summary line: the run's verdict and the offline one agree.
        let summary = judged.standardOutput.split(separator: "\n").last.map(String.init) ?? ""
        #expect(!summary.isEmpty && output.standardOutput.contains(summary), "\(summary)\n\(output.standardOutput)")
    }

    @Test("a client that reconnects in a tight loop breaks wire-attempt-rate; the rerun line and history are printed")
    func hotLoopFails() throws {
        // 120 attempts as fast as it can, then quiet: against a claimed 10 s exponential backoff
        // (28 attempts a minute at most), however slowly the machine runs it.
        let script = """
            import sys, time
            from websockets.sync.client import connect
            for _ in range(120):
                try:
                    connect(sys.argv[1], open_timeout=5).close()
                except Exception:
                    pass
            time.sleep(600)
            """
        let directory = try LivesimProcess.freshDirectory()
        try #"{"backoff": {"policy": "exponential", "base": "10s", "cap": "60s"}, "backoffResets": "when-open"}"#
            .write(to: directory.appending(path: "slow.json"), atomically: true, encoding: .utf8)
        // Seed 20's swarm schedule has no fault in its first 15 s: nothing slows the loop.
        let output = try LivesimProcess.run(
            [
                "torture", "--seed", "20", "--fault-profile", "swarm", "--duration", "15s", "--claims", "slow.json",
                "--record", "hot.jsonl", "--", "python3", "-c", script, "{url}",
            ], in: directory, within: 120)
        #expect(output.status == 1, "\(output.standardOutput)\n\(output.standardError)")
        #expect(output.standardOutput.contains("wire-attempt-rate (client torture)"), "\(output.standardOutput)")
        #expect(output.standardOutput.contains("history: hot.jsonl"), "\(output.standardOutput)")
        #expect(
            output.standardOutput.contains(
                "rerun: livesim torture --seed 20 --duration 15s --fault-profile swarm --claims slow.json -- python3 -c"
            ),
            "\(output.standardOutput)")
        let judged = try LivesimProcess.run(["judge", "hot.jsonl", "--claims", "slow.json"], in: directory, within: 60)
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
        // Seed 20's swarm schedule has no fault in its first 10 s: a healthy server, which a
        // client that started in time connects to (a loaded machine may start it late).
        let output = try LivesimProcess.run(
            [
                "torture", "--seed", "20", "--fault-profile", "swarm", "--duration", "10s", "--record", "run.jsonl",
                "--", "python3", script, "{url}",
            ], in: directory, within: 90)
        #expect(output.status == 0, "\(output.standardOutput)\n\(output.standardError)")
        #expect(!output.standardOutput.contains("exited by itself"), "the client died: \(output.standardOutput)")
        let history = try String(contentsOf: directory.appending(path: "run.jsonl"), encoding: .utf8)
        if history.contains(#""e":"open""#) {
            #expect(output.standardOutput.contains("1 client(s) [\"torture\"]"), "\(output.standardOutput)")
        }
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

    @Test(
        "serve --record: a history that cannot be written is reported with its file and line (exit 1), and the path is written through, never replaced",
        .enabled(if: FileManager.default.fileExists(atPath: "/dev/full")))
    func recordWriteFailure() throws {
        let output = try LivesimProcess.run(
            ["serve", "--echo", "--record", "/dev/full", "--duration", "1s"], within: 30)
        #expect(output.status == 1, "\(output.standardError)")
        #expect(output.standardError.contains("/dev/full:1: cannot write"), "\(output.standardError)")
        // Still the device: a history is opened in place, not swapped in by a rename.
        let type = try FileManager.default.attributesOfItem(atPath: "/dev/full")[.type] as? FileAttributeType
        #expect(type == .typeCharacterSpecial)
        let missing = try LivesimProcess.run(["serve", "--record", "/nonexistent-livesim/x.jsonl"], within: 30)
        #expect(missing.status == 1)
        #expect(missing.standardError.contains("/nonexistent-livesim/x.jsonl: cannot create the file"))
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
                "torture", "--seed", "1", "--duration", "5s", "--", "sh", "-c",
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
