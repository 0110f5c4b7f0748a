import Foundation
import LiveConnection
import LiveConnectionSimulator
import TestScheduling
import Testing

@testable import LivesimCLI

/// The built `livesim` as a user runs it: hostile vectors through a real process, deadlines
/// on silent peers, signals, exit statuses, files never overwritten, readable file errors.
/// Without the built binary every test fails with ``LivesimProcess/NotBuilt`` (run `swift
/// build` first) rather than skipping; each process has its own deadline, the suite a limit.
@Suite("livesim as a process", .waitsOnPeers, .timeLimit(.minutes(10)))
struct LivesimProcessTests {
    /// A sample of the in-process hostile vectors, spawned: usage errors must exit 64 fast with
    /// a short message; accepted vectors must not die by a signal before the deadline.
    @Test(
        "hostile vectors through the real binary: no signal, a documented status, a short message",
        arguments: Livesim.commands.map(\.name))
    func hostileSpawned(name: String) throws {
        let command = Livesim.commands.first { $0.name == name }!
        var usageErrors = 0
        var accepted = 0
        var seed: UInt64 = 0
        // A vector drawn again (the bare command name is one in six draws) is the same run of
        // the same binary: its first run's output answers for it. Spawning each again was a
        // sixth of this test's processes, and an accepted one runs for its whole deadline.
        var outputs: [[String]: LivesimProcess.Output] = [:]
        while (usageErrors < 16 || accepted < 2) && seed < 2000 {
            defer { seed += 1 }
            let words = HostileArgumentTests.vector(for: command, seed: seed &* 104_729 &+ 17)
            let wouldRun: Bool
            switch Livesim.resolve(words, in: .livesim) {
            case .exit(let status, _):
                guard status == 64, usageErrors < 16 else { continue }
                usageErrors += 1
                wouldRun = false
            case .run:
                // Absolute paths could write outside the test's directory; live hosts are never named.
                guard accepted < 2, !words.contains(where: { $0.hasPrefix("/") }) else { continue }
                accepted += 1
                wouldRun = true
            }
            let output = try outputs[words] ?? LivesimProcess.run(words, within: wouldRun ? 3 : 10)
            outputs[words] = output
            if wouldRun && output.timedOut { continue }  // a valid long run, ended by us
            #expect(!output.signalled, "\(words): signal \(output.status)")
            #expect(command.documentedStatuses.contains(output.status), "\(words): exit \(output.status)")
            #expect(output.standardError.count < 500 || output.status != 64, "\(words)")
            if !wouldRun {
                #expect(output.status == 64, "\(words): \(output.standardError)")
                #expect(output.standardOutput.isEmpty, "\(words)")
            }
        }
        #expect(usageErrors == 16)
    }

    @Test("echo-client against a server that completes the handshake and goes silent exits 1 after --timeout")
    func echoClientSilentServer() throws {
        let peer = try WebSocketPeer("silent")
        let output = try LivesimProcess.run(["echo-client", peer.url, "--timeout", "500ms"], within: 20)
        #expect(!output.timedOut, "echo-client waited forever on a silent server")
        #expect(output.status == 1)
        #expect(output.standardOutput.contains("timed out: no frame from the server within 500ms"))
    }

    @Test("connect stops after --max-attempts failures (exit 1), not retrying forever")
    func connectGivesUp() throws {
        let output = try LivesimProcess.run(["connect", "ws://127.0.0.1:1/", "--max-attempts", "2"], within: 30)
        #expect(!output.timedOut)
        #expect(output.status == 1)
        #expect(output.standardError.contains("stopped for good: gave up after 2 attempts"), "\(output.standardError)")
        #expect(output.standardOutput.contains("phase stopped reason=\"gave up after 2 attempts\""))
        #expect(output.standardOutput.components(separatedBy: "phase connecting").count == 3, "two attempts")
    }

    @Test(
        "connect with an invalid URL stops at once with a clear error (64)",
        arguments: ["ws://", "ws://h:70000/", "http://127.0.0.1/", "ws:// /"])
    func connectInvalidURL(url: String) throws {
        let output = try LivesimProcess.run(["connect", url], within: 10)
        #expect(output.status == 64)
        #expect(output.standardError.contains("URL"), "\(output.standardError)")
    }

    @Test("connect exits 1 when the manager stops for good (the server closes with 1008)")
    func connectTerminalStop() throws {
        let peer = try WebSocketPeer("terminal")
        let output = try LivesimProcess.run(["connect", peer.url], within: 20)
        #expect(!output.timedOut)
        #expect(output.status == 1)
        #expect(output.standardError.contains("the manager stopped for good"), "\(output.standardError)")
    }

    @Test("Ctrl-C: connect sends a close frame, prints a stopped line and exits 130")
    func connectInterrupted() throws {
        let peer = try WebSocketPeer("record")
        let livesim = try LivesimProcess(["connect", peer.url])
        #expect(livesim.waitForOutput(containing: "phase open", seconds: 15), "\(livesim.standardOutputSoFar)")
        livesim.process.interrupt()
        let output = livesim.finish(within: 15)
        #expect(!output.timedOut && !output.signalled)
        #expect(output.status == 130)
        #expect(output.standardOutput.contains("stopped (interrupted)"), "\(output.standardOutput)")
        #expect(peer.readLine() == "CLOSE 1000")
    }

    @Test("connect --duration closes (1000) and exits 0")
    func connectDuration() throws {
        let peer = try WebSocketPeer("record")
        let output = try LivesimProcess.run(["connect", peer.url, "--duration", "1s"], within: 20)
        #expect(output.status == 0, "\(output.standardError)")
        #expect(output.standardOutput.contains("stopped (duration elapsed)"))
        #expect(peer.readLine() == "CLOSE 1000")
    }

    @Test("explore --variant never overwrites a trace already there; --overwrite does")
    func exploreKeepsExistingTraces() throws {
        let directory = try LivesimProcess.freshDirectory()
        let arguments = [
            "explore", "--variant", "skips-resubscribe", "--seeds", "0..2", "--duration", "10m", "--traces", "Traces",
        ]
        let first = try LivesimProcess.run(arguments, in: directory, within: 120)
        #expect(first.status == 1)
        let traces = directory.appendingPathComponent("Traces")
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: traces.path).first)
        let committed = traces.appendingPathComponent(name)
        try Data("a committed trace\n".utf8).write(to: committed)

        let second = try LivesimProcess.run(arguments, in: directory, within: 120)
        #expect(second.status == 1)
        #expect(try String(contentsOf: committed, encoding: .utf8) == "a committed trace\n")
        let stem = (name as NSString).deletingPathExtension
        #expect(second.standardOutput.contains("Traces/\(stem)-2.trace"), "\(second.standardOutput)")
        #expect(FileManager.default.fileExists(atPath: traces.appendingPathComponent("\(stem)-2.trace").path))

        let third = try LivesimProcess.run(arguments + ["--overwrite"], in: directory, within: 120)
        #expect(third.status == 1)
        #expect(try String(contentsOf: committed, encoding: .utf8) != "a committed trace\n")
    }

    @Test("explore --variant writes its trace to .livesim/traces, which ignores itself, and nothing into Traces/")
    func exploreWritesScratchTracesByDefault() throws {
        let directory = try LivesimProcess.freshDirectory()
        let output = try LivesimProcess.run(
            ["explore", "--variant", "skips-resubscribe", "--seeds", "0..2", "--duration", "10m"], in: directory,
            within: 120)
        #expect(output.status == 1)
        let scratch = directory.appendingPathComponent(".livesim")
        let written = try FileManager.default.contentsOfDirectory(atPath: scratch.appendingPathComponent("traces").path)
        #expect(written.count == 1 && written[0].hasSuffix(".trace"), "\(written)")
        #expect(output.standardOutput.contains(".livesim/traces/\(written[0])"), "\(output.standardOutput)")
        // The folder hides itself from git: `git status` stays clean without touching the user's .gitignore.
        let ignore = try String(contentsOf: scratch.appendingPathComponent(".gitignore"), encoding: .utf8)
        #expect(ignore.split(separator: "\n").contains("*"), "\(ignore)")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("Traces").path))
        // The runs stopped at their first violation: the report says how long they ran, not "0.0 h".
        let simulated = output.standardOutput.split(separator: "\n").first { $0.hasPrefix("simulated time") }
        #expect(simulated?.contains("ms (a failing run stops at its first violation)") == true, "\(simulated ?? "")")
    }

    @Test(
        "replay refuses a trace it cannot reproduce (a test's, an unknown client's, an unknown generator's), naming the command that can",
        arguments: [
            (
                "test: ChatTests/showsEveryMessageOnce\n",
                "LIVESIM_TRACE=x.trace swift test --filter 'ChatTests/showsEveryMessageOnce'"
            ),
            (
                "client: naive\n",
                "which this livesim does not have (it has manager, notifications, actor, timers). Replay it where "
                    + "the client is compiled: in a livesim of your own, `Livesim.main(clients: [kind])`"
            ),
            ("", "LIVESIM_SEED=5 swift test --filter 'ChatTests/old'"),
        ])
    func replayRefusesForeignTraces(extraHeader: String, advice: String) throws {
        let directory = try LivesimProcess.freshDirectory()
        let scenario = Scenario(
            seed: 5, configuration: ConnectionConfiguration(), strategy: .fifo, duration: .seconds(60),
            schedule: [ScheduledAction(at: .zero, .connect(endpoint: 0))], managerSeed: 5)
        // No extra line: a test's trace from before traces named their test (its generator is the test).
        let generator = extraHeader.isEmpty ? GeneratorID(name: "ChatTests/old", version: 1) : .handWritten
        var text = Trace(scenario: scenario, generator: generator).encode()
        text = text.replacingOccurrences(of: "schedule:\n", with: extraHeader + "schedule:\n")
        try Data(text.utf8).write(to: directory.appendingPathComponent("x.trace"))
        let output = try LivesimProcess.run(["replay", "x.trace"], in: directory)
        #expect(output.status == 1)
        #expect(output.standardError.contains(advice), "\(output.standardError)")
        #expect(!output.standardOutput.contains("every invariant held"), "\(output.standardOutput)")
    }

    @Test("replay --write refuses to replace an existing file without --overwrite")
    func replayKeepsExistingFile() throws {
        let directory = try LivesimProcess.freshDirectory()
        try Data("keep me\n".utf8).write(to: directory.appendingPathComponent("out.trace"))
        let output = try LivesimProcess.run(
            ["replay", "--seed", "1", "--duration", "1m", "--quiet", "--write", "out.trace"], in: directory)
        #expect(output.status == 1)
        #expect(output.standardError.contains("out.trace exists; pass --overwrite"), "\(output.standardError)")
        #expect(try String(contentsOf: directory.appendingPathComponent("out.trace"), encoding: .utf8) == "keep me\n")
    }

    @Test("file errors are readable sentences, never NSCocoaErrorDomain; a 5 MB line is not echoed")
    func fileErrors() throws {
        let directory = try LivesimProcess.freshDirectory()
        let huge = directory.appendingPathComponent("huge.trace")
        try Data(String(repeating: "x", count: 5_000_000).utf8).write(to: huge)
        let cases: [([String], String)] = [
            (["stats", "fit", "missing.txt", "--policy", "full-jitter"], "missing.txt: no such file"),
            (["stats", "fit", ".", "--policy", "full-jitter"], ".: is a directory"),
            (["diff", "missing.trace", "huge.trace"], "missing.trace: no such file"),
            (["diff", "huge.trace", "huge.trace"], "huge.trace:1:"),
            (["connect", "ws://127.0.0.1:1/", "--ca", "missing.pem"], "missing.pem: no such file"),
        ]
        for (words, message) in cases {
            let output = try LivesimProcess.run(words, in: directory, within: 60)
            #expect(output.status == 1, "\(words)")
            #expect(output.standardError.contains(message), "\(words): \(output.standardError)")
            #expect(!output.standardError.contains("NSCocoaErrorDomain"))
            #expect(output.standardError.count < 500, "\(words): \(output.standardError.count) characters")
        }
    }

    @Test("long runs report progress on standard error with a rate (periodic lines when not a terminal)")
    func progress() throws {
        let output = try LivesimProcess.run(["explore", "--seeds", "0..3", "--duration", "10m"], within: 60)
        #expect(output.status == 0)
        #expect(output.standardError.contains("explored 3/3 seeds, 0 failing"), "\(output.standardError)")
        #expect(output.standardError.contains("seeds/s"))
        #expect(!output.standardError.contains("\r"), "carriage returns are for terminals only")
        #expect(!output.standardOutput.contains("explored 3/3"), "progress never goes to standard output")
    }

    @Test(
        "check, shrink and stats report progress too",
        arguments: [
            (["check", "--depth", "3", "--no-eventually", "--threads", "1"], "checked ", "states/s"),
            (["shrink", "--seeds", "0..3", "--duration", "1m"], "ran 3/3 seeds", "seeds/s"),
            (
                ["stats", "herd", "--clients", "5,10", "--seeds", "1", "--connections", "50"],
                "contention: ran 2/2 client counts", "outage: ran 4/4 policies"
            ),
            (["stats", "policies", "--runs", "50", "--attempts", "2"], "verified 6/6 policies", "policies/s"),
        ])
    func progressOfLongCommands(words: [String], first: String, second: String) throws {
        let output = try LivesimProcess.run(words, within: 120)
        #expect(!output.timedOut && !output.signalled)
        #expect(output.standardError.contains(first), "\(words): \(output.standardError)")
        #expect(output.standardError.contains(second), "\(words): \(output.standardError)")
    }

    @Test("interleavings --pct prints no meaningless choice-point count")
    func interleavingsPCT() throws {
        let output = try LivesimProcess.run(["interleavings", "--pct", "3", "--max-interleavings", "5"], within: 60)
        #expect(output.status == 0, "\(output.standardError)")
        #expect(
            output.standardOutput.contains("3 interleavings, all passed (PCT depth 3, seeds 0..<3)\n"),
            "\(output.standardOutput)")
        #expect(!output.standardOutput.contains("at most 0 choice points"))
    }

    @Test("the former name still runs: schedules --max-schedules is interleavings --max-interleavings")
    func schedulesIsAnAlias() throws {
        let output = try LivesimProcess.run(["schedules", "--preemptions", "0", "--max-schedules", "1"], within: 60)
        #expect(output.status == 0, "\(output.standardError)")
        #expect(output.standardOutput.contains("1 interleavings, all passed"), "\(output.standardOutput)")
    }
}
