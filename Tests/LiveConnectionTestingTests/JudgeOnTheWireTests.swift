import ExampleClients
import Foundation
import LiveConnectionSimulator
import LiveConnectionWire
import Testing

import typealias LiveConnection.Mutex

@testable import LiveConnectionTesting

/// A user's own client judged from the wire in a Swift Testing test: one issue per broken
/// rule, its first seed shrunk, the trace carrying the test's name and the client's claims,
/// and the trace replaying against the same client.
@Suite("judgeOnTheWire")
struct JudgeOnTheWireTests {
    @Test("a flawed client: each broken rule reported once, shrunk, with its claims, its test and a replay line")
    func flawedClient() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "livesim-judge-\(ProcessInfo.processInfo.processIdentifier)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let issues = Mutex<[String]>([])
        let judged = Mutex(WireJudgement(runs: 0))
        try withKnownIssue {
            let judgement = try judgeOnTheWire(
                ExampleClients.reconnectingActor, seeds: 0..<3, duration: .seconds(600), shrinkAttempts: 60,
                traceDirectory: directory.path, sourceLocation: #_sourceLocation)
            judged.withLock { $0 = judgement }
        } matching: { issue in
            issues.withLock { $0.append(issue.comments.map(\.rawValue).joined(separator: "\n")) }
            return true
        }
        let reported = issues.withLock { $0 }
        let judgement = judged.withLock { $0 }
        #expect(judgement.runs == 3)
        #expect(!judgement.passed)
        #expect(reported.count == judgement.failingSeeds.count + judgement.unfinished.count, "\(reported)")
        let trace = try #require(judgement.traces.first)
        #expect(trace.test == "JudgeOnTheWireTests/flawedClient")
        #expect(trace.client == "actor")
        #expect(trace.claims?.contains("dead-peer=") == true, "\(trace.claims ?? "")")
        #expect(trace.scenario.schedule.count <= 10)
        let report = try #require(reported.first { $0.contains("replay: LIVESIM_TRACE=") })
        #expect(report.contains("swift test --filter 'JudgeOnTheWireTests/flawedClient'"), "\(report)")
        let written = try FileManager.default.contentsOfDirectory(
            atPath: directory.appendingPathComponent("clients").path)
        #expect(written.count == judgement.traces.count, "\(written)")

        // The replay line's run: the same client against the shrunk schedule breaks the same rule.
        let rule = try #require(trace.expectation)
        let replayed = Mutex<[String]>([])
        withKnownIssue {
            _ = replayWireTrace(
                PinnedTrace(path: "x.trace", trace: trace), kind: ExampleClients.reconnectingActor,
                sourceLocation: #_sourceLocation)
        } matching: { issue in
            replayed.withLock { $0.append(issue.comments.map(\.rawValue).joined()) }
            return true
        }
        #expect(replayed.withLock { $0 }.contains { "violation \($0.split(separator: " ")[1])" == rule.description })
    }
}
