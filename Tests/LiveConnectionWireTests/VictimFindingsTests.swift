import ExampleClients
import LiveConnectionSimulator
import LiveConnectionWire
import Testing

/// The three victims' flaws, found from the wire by a swarm exploration and shrunk.
@Suite("Victims judged from the wire")
struct VictimFindingsTests {
    /// Each listed flaw: the client, the rule that shows it from the wire, why, and a seed
    /// range that holds it (from `livesim explore --client NAME --seeds 0..1000`, whose first
    /// failing seed per rule sets the bound: the test explores the range and must find it).
    static let findings: [(client: String, rule: Rule, flaw: String, within: UInt64, duration: Duration)] = [
        ("notifications", .wireOneSocket, "two live sockets after appear + activate", 40, .seconds(3600)),
        ("notifications", .wireDeadPeerGivenUp, "a silent peer never detected", 40, .seconds(3600)),
        ("notifications", .wireHerdSpread, "synchronized retries across clients (no jitter)", 40, .seconds(3600)),
        ("notifications", .wireResubscribedBeforeOpen, "messages lost across a drop (no resubscribe)", 40, .seconds(3600)),
        ("actor", .wireBackoffWithinClaim, "the fake 'connected' resets the counter: the delay never grows", 3, .seconds(3600)),
        ("actor", .wireHerdSpread, "0–25 % on top is not full jitter: a herd retries together", 15, .seconds(3600)),
        ("actor", .wireReconnects, "stops for good after 10 refused attempts", 80, .seconds(3600)),
        ("actor", .wireDeadPeerGivenUp, "a silent peer never detected", 3, .seconds(3600)),
        ("timers", .wireQuietAfterStop, "reconnects after the user disconnected", 6, .seconds(600)),
        ("timers", .wireOneSocket, "a stale failure doubles the new connection", 6, .seconds(600)),
        ("timers", .wireBackoffWithinClaim, "the counter reset on the fake 'connected': the delay never grows", 6, .seconds(600)),
        ("timers", .wireRetryLimitKept, "the limit of 5 is never reached", 6, .seconds(600)),
        ("timers", .wireDeadPeerGivenUp, "no dead-peer detection", 6, .seconds(600)),
    ]

    static let catalogue = ClientCatalogue(ExampleClients.all)

    /// One exploration per victim over the largest range its findings name (shared by them).
    static let summaries: [String: (WireExplorationSummary, WireScenarioGenerator)] = {
        var result: [String: (WireExplorationSummary, WireScenarioGenerator)] = [:]
        for kind in catalogue.kinds {
            let mine = findings.filter { $0.client == kind.name }
            guard let within = mine.map(\.within).max(), let duration = mine.first?.duration else { continue }
            let generator = WireScenarioGenerator(duration: duration)
            result[kind.name] = (WireExplorer(seeds: 0..<within, generator: generator, kind: kind).run(), generator)
        }
        return result
    }()

    @Test("each listed flaw is found from the wire and shrinks to at most 10 actions", arguments: 0..<findings.count)
    func found(index: Int) throws {
        let finding = Self.findings[index]
        let kind = try Self.catalogue.kind(named: finding.client)
        let (summary, generator) = try #require(Self.summaries[finding.client])
        let failure = try #require(
            summary.failures.first { $0.seed < finding.within && $0.violations.contains { $0.rule == finding.rule } },
            "\(finding.client): \(finding.flaw) — no seed in 0..<\(finding.within) broke \(finding.rule.name)")
        let scenario = generator.scenario(seed: failure.seed)
        let counterexample = WireCounterexample.shrink(scenario, kind: kind, rule: finding.rule)
        #expect(counterexample.result.violations.contains { $0.rule == finding.rule }, "the shrunk run no longer fails")
        #expect(
            counterexample.shrunk.base.schedule.count <= 10,
            "\(finding.client) \(finding.rule.name) seed \(failure.seed): \(counterexample.shrunk.base.schedule.count) actions")
    }

    @Test("the manager keeps every rule on the seeds where the victims break them")
    func managerKeepsThem() {
        let manager = ManagerClient.kind()
        for seed in Set(Self.findings.map { $0.within - 1 }).sorted() {
            let scenario = WireScenarioGenerator(duration: .seconds(900)).scenario(seed: seed)
            let result = WireRun(scenario, kind: manager, recordsLog: false).run()
            #expect(result.passed, "seed \(seed): \(result.violations)")
        }
    }
}
