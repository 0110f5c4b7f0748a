import Foundation
import LiveConnection
import LiveConnectionWire
import LiveTestServer
import WebSocketTransport
import WireHistory

/// One `livesim torture` run: the server with its faults and its history, the command in its
/// process group, the end at the duration, the judgement.
struct TortureRun: Sendable {
    var faults: RealTimeFaults
    var claimsPath: String?
    /// A catalogue client whose claims (and topic `feed`) judge the run, instead of a file.
    var claimsOf: String?
    /// The clients `claimsOf` names one of.
    var clients: ClientCatalogue
    var record: String?
    var tolerance: Duration
    var port: UInt16
    /// The user's server, to put the proxy in front of instead of running the live server.
    var upstream: URL?
    var command: [String]

    /// The identity the URL gives the command's connections.
    static let client = "torture"

    func run() async -> Int32 {
        let claims: WireClaimsFile
        do {
            claims = try JudgeCommand.claims(at: claimsPath, of: claimsOf, in: clients)
        } catch {
            standardError("livesim torture: \(error)")
            return 2
        }
        let path = record ?? Self.freshName("livesim-torture-seed\(faults.seed)", extension: "jsonl")
        let history: HistoryRecording
        let subject: TortureSubject
        do {
            (subject, history) = try await TortureSubject.start(
                upstream: upstream, port: port, path: path, faults: faults)
        } catch {
            standardError("livesim torture: \(describe(error))")
            return 2
        }
        let url = subject.clientURL(client: Self.client)
        let arguments = command.map { $0.replacingOccurrences(of: "{url}", with: url) }
        let front = upstream.map { "proxy \(url) in front of \($0.absoluteString)" } ?? "server \(url)"
        printLine(
            "torture: seed \(faults.seed), \(faults.description), for \(formatDuration(faults.duration)); \(front)"
        )
        printLine("torture: history \(path)")
        let child: ChildProcess
        do {
            child = try ChildProcess(arguments, environment: ["LIVESIM_URL": url])
        } catch {
            standardError("livesim torture: \(error)")
            _ = try? history.finish()
            return 2
        }
        printLine("torture: running \(Self.shellLine(arguments)) (pid \(child.pid), its own process group)")
        let signals = InterruptSignals()
        defer { signals.restoreDefaults() }
        let interrupted = await withTaskGroup(of: Int32?.self) { group in
            group.addTask {
                await subject.run()
                return nil
            }
            group.addTask {
                await history.drain()
                return nil
            }
            group.addTask {
                // Done early, the run goes on to its duration: a nil ends nothing.
                await subject.run(faults) { printLine("torture: \($0)") }
                return nil
            }
            group.addTask {
                try? await ContinuousClock().sleep(for: faults.duration)
                return 0
            }
            group.addTask {
                await Self.watch(child)
                return nil
            }
            group.addTask {
                for await number in signals.signals { return InterruptSignals.exitStatus(for: number) }
                return nil
            }
            var outcome: Int32?
            while let next = await group.next() {
                if let next {
                    outcome = next
                    break
                }
            }
            // The run is over: the judge's end instant, then the command's group ends, then the server.
            history.end()
            let status = await child.endGroup(grace: .seconds(2))
            printLine("torture: ended \(Self.shellLine(arguments)) (exit \(status))")
            group.cancelAll()
            return outcome == 0 ? nil : outcome
        }
        do {
            _ = try history.finish()
        } catch {
            standardError("livesim torture: \(error)")
            return 2
        }
        if let interrupted { return interrupted }
        return judge(path: path, claims: claims)
    }

    /// Prints when the command exits before the run ends (a client that gave up).
    private static func watch(_ child: ChildProcess) async {
        let start = ContinuousClock.now
        while !Task.isCancelled {
            if let status = child.exitStatus {
                guard !child.isBeingEnded else { return }
                printLine(
                    "torture: the command exited by itself after \((ContinuousClock.now - start).traceFormatted) (exit \(status))"
                )
                return
            }
            try? await ContinuousClock().sleep(for: .milliseconds(50))
        }
    }

    private func judge(path: String, claims: WireClaimsFile) -> Int32 {
        let verdict: HistoryVerdict
        do {
            verdict = try HistoryJudgement(claims: claims.claims, topics: claims.topics, tolerance: tolerance)
                .judge(path: path)
        } catch {
            standardError("livesim torture: \(error)")
            return 2
        }
        JudgeCommand.print(verdict, path: path)
        guard !verdict.passed else { return 0 }
        printLine(
            "history: \(path)  (livesim judge \(Self.quoted(path))"
                + (claimsPath.map { " --claims \(Self.quoted($0))" } ?? claimsOf.map { " --claims-of \($0)" } ?? "")
                + ")"
        )
        printLine("rerun: \(rerunLine)")
        return 1
    }

    /// The command line that runs the same schedule again.
    var rerunLine: String {
        var words = ["livesim", "torture", "--seed", "\(faults.seed)", "--duration", formatDuration(faults.duration)]
        if faults.profile == .swarm {
            words += ["--fault-profile", "swarm"]
        } else if faults.interval != RealTimeFaults.defaultInterval {
            words += ["--fault-interval", formatDuration(faults.interval)]
        }
        if let upstream { words += ["--upstream", upstream.absoluteString] }
        if let claimsPath { words += ["--claims", claimsPath] }
        if let claimsOf { words += ["--claims-of", claimsOf] }
        if tolerance != .milliseconds(250) { words += ["--tolerance", formatDuration(tolerance)] }
        return Self.shellLine(words + ["--"] + command)
    }

    static func shellLine(_ words: [String]) -> String { words.map(quoted).joined(separator: " ") }

    /// A word as a POSIX shell reads it back.
    static func quoted(_ word: String) -> String {
        let plain = word.unicodeScalars.allSatisfy {
            CharacterSet.alphanumerics.contains($0) || "-_./:=@%+,{}".unicodeScalars.contains($0)
        }
        return plain && !word.isEmpty ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// `stem.ext`, or `stem-2.ext`, `stem-3.ext`, … if it exists: nothing is overwritten.
    static func freshName(_ stem: String, extension ext: String) -> String {
        var candidate = "\(stem).\(ext)"
        var number = 2
        while FileManager.default.fileExists(atPath: candidate) {
            candidate = "\(stem)-\(number).\(ext)"
            number += 1
        }
        return candidate
    }
}
