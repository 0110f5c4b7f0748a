import ExampleClients
import Foundation
import LiveConnectionSimulator
import LiveConnectionWire
import TestScheduling
import Testing

/// The three victims' flaws, found from the wire by a swarm exploration and shrunk.
@Suite("Victims judged from the wire", .computeBound)
struct VictimFindingsTests {
    /// Each listed flaw: the client, the rule that shows it from the wire, why, and the first
    /// seed that breaks it (`livesim explore --client NAME --seeds 0..1000` in debug, the
    /// seed in the name of its trace under Traces/clients).
    static let findings: [(client: String, rule: Rule, flaw: String, seed: UInt64, duration: Duration)] = [
        ("notifications", .wireOneSocket, "two live sockets after appear + activate", 0, .seconds(3600)),
        ("notifications", .wireDeadPeerGivenUp, "a silent peer never detected", 2, .seconds(3600)),
        ("notifications", .wireHerdSpread, "synchronized retries across clients (no jitter)", 14, .seconds(3600)),
        (
            "notifications", .wireResubscribedBeforeOpen, "messages lost across a drop (no resubscribe)", 0,
            .seconds(3600)
        ),
        (
            "actor", .wireBackoffWithinClaim, "the fake 'connected' resets the counter: the delay never grows", 2,
            .seconds(3600)
        ),
        ("actor", .wireHerdSpread, "0–25 % on top is not full jitter: a herd retries together", 14, .seconds(3600)),
        ("actor", .wireReconnects, "stops for good after 10 refused attempts", 79, .seconds(3600)),
        ("actor", .wireDeadPeerGivenUp, "a silent peer never detected", 2, .seconds(3600)),
        ("timers", .wireQuietAfterStop, "reconnects after the user disconnected", 3, .seconds(600)),
        ("timers", .wireOneSocket, "a stale failure doubles the new connection", 2, .seconds(600)),
        (
            "timers", .wireBackoffWithinClaim, "the counter reset on the fake 'connected': the delay never grows", 0,
            .seconds(600)
        ),
        ("timers", .wireRetryLimitKept, "the limit of 5 is never reached", 0, .seconds(600)),
        ("timers", .wireDeadPeerGivenUp, "no dead-peer detection", 2, .seconds(600)),
    ]

    static let catalogue = ClientCatalogue(ExampleClients.all)

    /// Which seeds a finding's search explores. A release build (CI's second run) explores
    /// every seed from 0 up to the finding's, as `livesim explore` does, so the flaw is found
    /// by searching, not by being told where, and shrinks it; a debug build (CI's first run,
    /// ten times slower: searching and shrinking cost more than 9 CPU minutes there) runs the
    /// finding's own seed and leaves the shrunk form to its committed trace (replayed by
    /// `ClientTraceRegressionTests`), unless `LIVESIM_TEST_SCALE=full` asks for all of it
    /// (``TestScale/victimSeeds``).
    static func seeds(for finding: (client: String, rule: Rule, flaw: String, seed: UInt64, duration: Duration))
        -> Range<UInt64>
    {
        searchesFromZero
            ? 0..<(findings.filter { $0.client == finding.client }.map(\.seed).max()! + 1)
            : TestScale.victimSeeds.trailing(0..<(finding.seed + 1))
    }

    static var searchesFromZero: Bool { TestScale.victimSeeds.isAll }

    /// One exploration per victim and seed range, shared by the findings that share a range,
    /// each computed by the first case that needs it (the rest explore theirs meanwhile).
    static let summaries = OncePerKey<String, WireExplorationSummary>()

    static func summary(
        for finding: (client: String, rule: Rule, flaw: String, seed: UInt64, duration: Duration)
    ) throws -> WireExplorationSummary {
        let seeds = Self.seeds(for: finding)
        let kind = try catalogue.kind(named: finding.client)
        return summaries.value(for: "\(finding.client) \(seeds)") {
            WireExplorer(seeds: seeds, generator: WireScenarioGenerator(duration: finding.duration), kind: kind).run()
        }
    }

    @Test("each listed flaw is found from the wire and shrinks to at most 10 actions", arguments: 0..<findings.count)
    func found(index: Int) throws {
        let finding = Self.findings[index]
        let kind = try Self.catalogue.kind(named: finding.client)
        let seeds = Self.seeds(for: finding)
        let summary = try Self.summary(for: finding)
        let failure = try #require(
            summary.failures.first { $0.violations.contains { $0.rule == finding.rule } },
            "\(finding.client): \(finding.flaw) — no seed in \(seeds) broke \(finding.rule.name)")
        guard Self.searchesFromZero else {
            let trace = TraceLibrary.fileName(invariant: finding.rule.name, seed: finding.seed, variant: finding.client)
            let library = try #require(ClientTraceRegressionTests.library)
            #expect(
                FileManager.default.fileExists(atPath: library.directory.appendingPathComponent(trace).path),
                "no shrunk trace \(trace) in Traces/clients")
            return
        }
        let scenario = WireScenarioGenerator(duration: finding.duration).scenario(seed: failure.seed)
        let counterexample = WireCounterexample.shrink(scenario, kind: kind, rule: finding.rule)
        #expect(counterexample.result.violations.contains { $0.rule == finding.rule }, "the shrunk run no longer fails")
        #expect(
            counterexample.shrunk.base.schedule.count <= 10,
            "\(finding.client) \(finding.rule.name) seed \(failure.seed): \(counterexample.shrunk.base.schedule.count) actions"
        )
    }

    @Test("a run-away failing client stops soon after its first violation, not at the job limit")
    func failingRunStopsEarly() throws {
        let timers = try Self.catalogue.kind(named: "timers")
        let scenario = WireScenarioGenerator(duration: .seconds(600)).scenario(seed: 0)
        let result = WireRun(scenario, kind: timers, recordsLog: false).run()
        #expect(!result.passed)
        #expect(!result.deadlocked, "a run cut short after a violation has its verdict")
        // Its loops multiply: without the budget after the first violation it ran to the
        // limit, 150,000 jobs in 0.2 simulated hours.
        #expect(result.jobsRun <= 2 * WireRun.jobsAfterViolation(clients: 1))
        #expect(result.unfinished?.contains("after its first violation") == true, "\(result.unfinished ?? "finished")")
    }

    @Test("the manager keeps every rule on the seeds where the victims break them")
    func managerKeepsThem() {
        let manager = ManagerClient.kind()
        for seed in Set(Self.findings.map(\.seed)).sorted() {
            let scenario = WireScenarioGenerator(duration: .seconds(900)).scenario(seed: seed)
            let result = WireRun(scenario, kind: manager, recordsLog: false).run()
            #expect(result.passed, "seed \(seed): \(result.violations)")
        }
    }
}
