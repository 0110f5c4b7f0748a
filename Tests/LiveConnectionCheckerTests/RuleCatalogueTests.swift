import Foundation
import LiveConnection
import LiveConnectionChecker
import LiveConnectionSimulator
import TestScheduling
import Testing

/// The simulator, the checker and the trace files name rules from one catalogue: the same
/// rule never goes by two names, and each is judged where it can be checked.
@Suite("One catalogue of rules", .computeBound)
struct RuleCatalogueTests {
    static func names(judgedBy judge: Rule.Judge) -> Set<String> {
        Set(Rule.catalogue.filter { $0.judges.contains(judge) }.map(\.name))
    }

    @Test("rule names are unique")
    func unique() {
        #expect(Set(Rule.catalogue.map(\.name)).count == Rule.catalogue.count)
    }

    @Test("the simulator's invariants are exactly the rules it judges, with the catalogue's words")
    func simulator() throws {
        #expect(Set(Invariant.all.map(\.name)) == Self.names(judgedBy: .simulator))
        for invariant in Invariant.all {
            #expect(Rule.named(invariant.name)?.summary == invariant.summary, "\(invariant)")
        }
    }

    @Test("the checker's properties (its reachability goals aside) are exactly the rules it judges, none time-bounded")
    func checker() throws {
        let model = try ConnectionModel(bounds: ConnectionBounds())
        let properties = model.properties.filter { $0.kind != .sometimes }.map(\.name)
        #expect(Set(properties) == Self.names(judgedBy: .checker))
        #expect(properties.count == Set(properties).count, "a property name appears twice: \(properties)")
        let timed = Rule.catalogue.filter { $0.timeBounded && $0.judges.contains(.checker) }
        #expect(timed.isEmpty, "the checker has no time to judge \(timed)")
    }

    @Test("the wire's rules are judged from the wire alone, listed in report order, and named wire-…")
    func wire() {
        #expect(Rule.wireRules == Rule.catalogue.filter { $0.judges.contains(.wire) })
        for rule in Rule.wireRules {
            #expect(rule.judges == [.wire] && rule.name.hasPrefix("wire-"), "\(rule)")
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
                    Rule.named(rule)?.judges.contains(.simulator) == true,
                    "\(file.lastPathComponent) is not <rule>-seed<N> for a rule the simulator judges")
            }
        }
    }
}
