import ExampleClients
import LiveConnectionSimulator
import LiveConnectionWire
import Testing

/// The three victims' flaws, found from the wire by a swarm exploration and shrunk.
@Suite("Victims judged from the wire")
struct VictimFindingsTests {
    /// Each listed flaw: the client, the rule that shows it from the wire, and why.
    static let findings: [(client: String, rule: WireRule, flaw: String)] = [
        ("notifications", .oneSocket, "two live sockets after appear + activate"),
        ("notifications", .deadPeerGivenUp, "a silent peer never detected"),
        ("notifications", .herdSpread, "synchronized retries across clients (no jitter)"),
        ("notifications", .resubscribedBeforeOpen, "messages lost across a drop (no resubscribe)"),
        ("actor", .backoffWithinClaim, "the fake 'connected' resets the counter: the delay never grows"),
        ("actor", .herdSpread, "0–25 % on top is not full jitter: a herd retries together"),
        ("actor", .reconnects, "stops for good after 10 refused attempts"),
        ("actor", .deadPeerGivenUp, "a silent peer never detected"),
        ("timers", .quietAfterStop, "reconnects after the user disconnected"),
        ("timers", .oneSocket, "a stale failure doubles the new connection"),
        ("timers", .backoffWithinClaim, "the counter reset on the fake 'connected': the delay never grows"),
        ("timers", .retryLimitKept, "the limit of 5 is never reached"),
        ("timers", .deadPeerGivenUp, "no dead-peer detection"),
    ]

    static let catalogue = ClientCatalogue(ExampleClients.all)

    /// One exploration per victim, shared by its findings (seeds as `livesim explore` runs them).
    static let summaries: [String: WireExplorationSummary] = {
        var summaries: [String: WireExplorationSummary] = [:]
        for kind in catalogue.kinds {
            summaries[kind.name] = WireExplorer(seeds: 0..<Self.seeds, kind: kind).run()
        }
        return summaries
    }()

    /// The seeds each victim is explored over (the 0..<1000 runs from `livesim explore`
    /// in CI; here a prefix that already holds every finding).
    static let seeds: UInt64 = 200

    @Test("each listed flaw is found from the wire and shrinks to at most 10 actions", arguments: 0..<findings.count)
    func found(index: Int) throws {
        let finding = Self.findings[index]
        let kind = try Self.catalogue.kind(named: finding.client)
        let summary = try #require(Self.summaries[finding.client])
        let failure = try #require(
            summary.firstFailure(of: finding.rule),
            "\(finding.client): \(finding.flaw) — no seed in 0..<\(Self.seeds) broke \(finding.rule.name)")
        let scenario = WireScenarioGenerator().scenario(seed: failure.seed)
        let counterexample = WireCounterexample.shrink(scenario, kind: kind, rule: finding.rule)
        #expect(counterexample.result.violations.contains { $0.rule == finding.rule }, "the shrunk run no longer fails")
        #expect(
            counterexample.shrunk.base.schedule.count <= 10,
            "\(finding.client) \(finding.rule.name) seed \(failure.seed): \(counterexample.shrunk.base.schedule.count) actions")
    }

    @Test("the manager's design keeps every rule the victims break")
    func managerKeepsThem() {
        // The victims' first failing seeds, run against the manager: none of their rules break.
        let manager = ManagerClient.kind()
        for (name, summary) in Self.summaries.sorted(by: { $0.key < $1.key }) {
            for failure in summary.failures.prefix(5) {
                let result = WireRun(WireScenarioGenerator().scenario(seed: failure.seed), kind: manager, recordsLog: false).run()
                #expect(result.passed, "seed \(failure.seed) (a failure of \(name)): \(result.violations)")
            }
        }
    }
}
