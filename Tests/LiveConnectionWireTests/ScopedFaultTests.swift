import Foundation
import LiveConnection
import LiveConnectionSimulator
import LiveConnectionWire
import Testing
import WireHistory

/// Fault records aimed at one client (a proxy's `client=ID`), read back by the judge: they
/// hold that client's connections and no other's.
@Suite("Wire history: faults aimed at one client")
struct ScopedFaultTests {
    /// Two clients, each with one socket open from the start; `fault` at 1 s; neither gives its
    /// socket up; the run ends at 60 s (the default dead-peer bound is 35 s).
    static func twoClients(_ fault: WireHistoryEvent) -> [WireHistoryRecord] {
        [
            .init(at: .milliseconds(1), event: .attempt(connection: 1, client: "a", path: "/live?client=a")),
            .init(at: .milliseconds(2), event: .opened(connection: 1)),
            .init(at: .milliseconds(3), event: .attempt(connection: 2, client: "b", path: "/live?client=b")),
            .init(at: .milliseconds(4), event: .opened(connection: 2)),
            .init(at: .seconds(1), event: fault),
            .init(at: .seconds(60), event: .end),
        ]
    }

    /// The clients (by name) that broke `rule`.
    static func breakers(of rule: Rule, in verdict: HistoryVerdict) -> [String] {
        verdict.violations.filter { $0.rule == rule }.map { verdict.clients[$0.client ?? 0] }.sorted()
    }

    @Test("a freeze aimed at a holds a's socket dead, not b's: only a breaks the dead-peer bound")
    func freezeOfOne() throws {
        let scoped = try HistoryJudgement(claims: WireClaimsFile.defaults)
            .judge(path: WireHistoryTests.write(Self.twoClients(.fault(.freeze, client: "a"))))
        #expect(Self.breakers(of: .wireDeadPeerGivenUp, in: scoped) == ["a"], "\(scoped.violations)")
        // The same freeze for everyone holds both: the client field is what spares b.
        let global = try HistoryJudgement(claims: WireClaimsFile.defaults)
            .judge(path: WireHistoryTests.write(Self.twoClients(.fault(.freeze))))
        #expect(Self.breakers(of: .wireDeadPeerGivenUp, in: global) == ["a", "b"], "\(global.violations)")
    }

    @Test("a thaw of a ends a's own freeze; a thaw for all ends every client's")
    func thaws() throws {
        func judged(_ thaw: WireHistoryEvent) throws -> [String] {
            var records = Self.twoClients(.fault(.freeze, client: "a"))
            records.insert(.init(at: .seconds(2), event: .fault(.freeze, client: "b")), at: 5)
            records.insert(.init(at: .seconds(10), event: thaw), at: 6)
            let verdict = try HistoryJudgement(claims: WireClaimsFile.defaults)
                .judge(path: WireHistoryTests.write(records))
            return Self.breakers(of: .wireDeadPeerGivenUp, in: verdict)
        }
        #expect(try judged(.fault(.thaw, client: "a")) == ["b"])
        #expect(try judged(.fault(.thaw)) == [])
    }

    @Test("a socket a client opens while its own freeze holds is silent from its open; another client's is not")
    func laterSocketOfFrozenClient() throws {
        let records: [WireHistoryRecord] = [
            .init(at: .zero, event: .fault(.freeze, client: "a")),
            .init(at: .milliseconds(1), event: .attempt(connection: 1, client: "a", path: "/live?client=a")),
            .init(at: .milliseconds(2), event: .opened(connection: 1)),
            .init(at: .milliseconds(3), event: .attempt(connection: 2, client: "b", path: "/live?client=b")),
            .init(at: .milliseconds(4), event: .opened(connection: 2)),
            .init(at: .seconds(60), event: .end),
        ]
        let verdict = try HistoryJudgement(claims: WireClaimsFile.defaults).judge(path: WireHistoryTests.write(records))
        #expect(Self.breakers(of: .wireDeadPeerGivenUp, in: verdict) == ["a"], "\(verdict.violations)")
    }

    @Test("a version-1 history (no client fields) is still read, and its faults are everyone's")
    func versionOne() throws {
        let header = WireHistoryHeader(version: 1, server: ["mode": "live"], faults: nil, origin: "x")
        let path = try WireHistoryTests.write([header.line] + Self.twoClients(.fault(.freeze)).map(\.line))
        let verdict = try HistoryJudgement(claims: WireClaimsFile.defaults).judge(path: path)
        #expect(verdict.header.version == 1)
        #expect(Self.breakers(of: .wireDeadPeerGivenUp, in: verdict) == ["a", "b"])
    }
}
