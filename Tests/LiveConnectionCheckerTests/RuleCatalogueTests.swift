import Foundation
import LiveConnection
import LiveConnectionChecker
import LiveConnectionSimulator
import LiveConnectionWire
import TestScheduling
import Testing

/// The simulator, the checker and the trace files name rules from one catalogue: the same
/// rule never goes by two names, and each is judged where it can be checked.
@Suite("One catalogue of rules", .computeBound)
struct RuleCatalogueTests {
    /// The names of the rules the checker judges: its properties, its reachability goals aside.
    static func checkerRules() throws -> [String] {
        try ConnectionModel(bounds: ConnectionBounds()).properties.filter { $0.kind != .sometimes }.map(\.name)
    }

    @Test("rule names are unique, the wire's included")
    func unique() {
        let all = Rule.catalogue + Rule.wireRules
        #expect(Set(all.map(\.name)).count == all.count)
    }

    @Test("every rule of the catalogue has a judge: the simulator, the checker or the exploration's pool")
    func everyRuleJudged() throws {
        let judged = Set(Rule.invariants.map(\.name)).union(try Self.checkerRules()).union([
            Rule.backoffDistribution.name
        ])
        #expect(Set(Rule.catalogue.map(\.name)) == judged)
    }

    @Test("the simulator's invariants are rules of the catalogue, each listed once")
    func simulator() throws {
        #expect(Set(Rule.invariants).count == Rule.invariants.count)
        for invariant in Rule.invariants {
            #expect(Rule.named(invariant.name) == invariant, "\(invariant)")
        }
    }

    @Test("the checker's properties (its reachability goals aside) are rules of the catalogue, none time-bounded")
    func checker() throws {
        let properties = try Self.checkerRules()
        #expect(properties.count == Set(properties).count, "a property name appears twice: \(properties)")
        for name in properties {
            let rule = try #require(Rule.named(name), "the checker's property \(name) is not in the catalogue")
            #expect(!rule.timeBounded, "the checker has no time to judge \(rule)")
        }
    }

    @Test("the wire's rules are judged from the wire alone, outside the manager's catalogue, and named wire-…")
    func wire() {
        for rule in Rule.wireRules {
            #expect(Rule.named(rule.name) == nil && rule.name.hasPrefix("wire-"), "\(rule)")
        }
    }

    @Test("every committed trace is named by a rule (the checker's: checker-<variant>-<rule>.trace)")
    func traceFiles() throws {
        let library = try #require(TraceLibrary.package())
        let variants = LogicVariant.all.map(\.name)
        for file in try library.files() {
            let name = file.deletingPathExtension().lastPathComponent
            if name.hasPrefix("checker-") {
                let named = Rule.catalogue.contains { rule in
                    variants.contains { "checker-\($0)-\(rule.name)" == name }
                }
                #expect(named, "\(file.lastPathComponent) is not checker-<variant>-<rule>")
            } else {
                let rule = name.split(separator: "-seed").first.map(String.init) ?? name
                #expect(
                    Rule.invariant(named: rule) != nil,
                    "\(file.lastPathComponent) is not <rule>-seed<N> for a rule the simulator judges")
            }
        }
    }
}
