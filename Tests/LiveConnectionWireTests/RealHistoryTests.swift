import ExampleClients
import Foundation
import LiveConnectionWire
import PackageFiles
import Testing
import WireHistory

/// The histories in Traces/real/, recorded from real clients on real sockets, judged offline:
/// the judge's reading of a real wire must not drift. Each file's verdict is stated here, with
/// the claims it was judged against (Traces/real/README.md says how each was recorded).
@Suite("Traces/real histories")
struct RealHistoryTests {
    /// File → (claims file in Traces/real, or nil for the defaults; the rules it breaks).
    static let verdicts: [String: (claims: String?, violated: Set<String>)] = [
        // Our manager (livesim connect, 0.3 s + 0.3 s heartbeat) through a freeze: it passes.
        "livesim-connect-freeze.jsonl": (nil, []),
        // Python websockets' `async for ws in connect(uri)` reconnects at once after a 4003.
        "python-websockets-4003.jsonl": (nil, ["wire-quiet-after-stop"]),
        // livesim torture --seed 117 --duration 60s (storm, 20 s): a 1008 at 0.85 s, an idle timeout,
        // accept-then-close 4001 from 3.4 s, refusals, a restart at 10.9 s, 403 from 12.5 s.
        "livesim-connect-seed117.jsonl": (nil, []),
        "websockets-connect-seed117.jsonl": (nil, ["wire-quiet-after-stop", "wire-attempt-rate"]),
        "websocket-client-seed117.jsonl": (nil, ["wire-quiet-after-stop", "wire-backoff-within-claim"]),
        "autobahn-twisted-seed117.jsonl": (nil, ["wire-quiet-after-stop"]),
        // livesim torture --seed 6 --duration 60s --fault-interval 60s: frozen from 7.9 s to 47 s (closes,
        // a 4003 and handshake statuses meanwhile go nowhere).
        "livesim-connect-seed6.jsonl": (nil, []),
        "websockets-connect-seed6.jsonl": (nil, []),
        "websocket-client-seed6.jsonl": (nil, ["wire-dead-peer-given-up"]),
        "autobahn-twisted-seed6.jsonl": (nil, ["wire-dead-peer-given-up"]),
    ]

    /// The kit's own clients on real sockets (`livesim client NAME {url}` under `livesim torture
    /// --claims-of NAME`, seeds 6 and 117 as above), judged with their own claims: the rules the
    /// simulator finds them breaking break here too.
    static let victims: [String: (kind: ClientKind, violated: Set<String>)] = [
        "victim-manager-seed6.jsonl": (ManagerClient.kind(), []),
        // No resubscribe on a new socket; a 30 s ping whose failure is ignored.
        "victim-notifications-seed6.jsonl": (ExampleClients.notifications, ["wire-dead-peer-given-up"]),
        "victim-notifications-seed117.jsonl": (ExampleClients.notifications, ["wire-resubscribed-before-open"]),
        // "Connected" before the handshake resets its backoff and its attempt count; pings that only log.
        "victim-actor-seed6.jsonl": (ExampleClients.reconnectingActor, ["wire-dead-peer-given-up"]),
        "victim-actor-seed117.jsonl": (
            ExampleClients.reconnectingActor, ["wire-backoff-within-claim", "wire-retry-limit-kept"]
        ),
        "victim-timers-seed6.jsonl": (ExampleClients.timerManager, ["wire-dead-peer-given-up"]),
        "victim-timers-seed117.jsonl": (
            ExampleClients.timerManager, ["wire-backoff-within-claim", "wire-retry-limit-kept"]
        ),
    ]

    @Test(
        "the kit's victims on real sockets break the rules they break in the simulator",
        arguments: Self.victims.keys.sorted())
    func victim(file: String) throws {
        let stated = try #require(Self.victims[file])
        let verdict = try HistoryJudgement(claims: stated.kind.claims, topics: ["feed"])
            .judge(path: Self.directory.appending(path: file).path)
        #expect(
            Set(verdict.violations.map(\.rule.name)) == stated.violated,
            "Traces/real/\(file): \(verdict.violations.map(verdict.describe)); rerun: livesim judge Traces/real/\(file) --claims-of \(stated.kind.name)"
        )
    }

    /// The same histories judged against what the client claims for itself, where that differs.
    static let ownClaims: [String: (claims: String, violated: Set<String>)] = [
        // websocket-client's run_forever(reconnect=5) waits 5 s every time: judged against that,
        // its delays are kept; what remains is a terminal code it ignored and a socket it held.
        "websocket-client-seed117.jsonl": ("websocket-client.claims.json", ["wire-quiet-after-stop"]),
        "websocket-client-seed6.jsonl": ("websocket-client.claims.json", ["wire-dead-peer-given-up"]),
    ]

    static let directory = PackageFiles.url("Traces/real")

    static var files: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
            .filter { $0.hasSuffix(".jsonl") }.sorted()
    }

    @Test("every history in Traces/real has a stated verdict")
    func everyFileStated() {
        #expect(!Self.files.isEmpty, "no histories in \(Self.directory.path)")
        for file in Self.files {
            #expect(
                Self.verdicts[file] != nil || Self.victims[file] != nil,
                "Traces/real/\(file) has no verdict in RealHistoryTests")
        }
    }

    @Test("a client judged against its own claims", arguments: Self.ownClaims.keys.sorted())
    func judgedAgainstOwnClaims(file: String) throws {
        let stated = try #require(Self.ownClaims[file])
        try judge(file, claims: stated.claims, expecting: stated.violated)
    }

    @Test("each history is judged offline to its stated verdict", arguments: Self.verdicts.keys.sorted())
    func verdict(file: String) throws {
        let stated = try #require(Self.verdicts[file])
        try judge(file, claims: stated.claims, expecting: stated.violated)
    }

    private func judge(_ file: String, claims name: String?, expecting violatedRules: Set<String>) throws {
        let claims: WireClaimsFile =
            if let name {
                try WireClaimsFile(json: String(contentsOf: Self.directory.appending(path: name), encoding: .utf8))
            } else {
                WireClaimsFile()
            }
        let verdict = try HistoryJudgement(claims: claims.claims, topics: claims.topics)
            .judge(path: Self.directory.appending(path: file).path)
        let violated = Set(verdict.violations.map(\.rule.name))
        #expect(
            violated == violatedRules,
            "Traces/real/\(file): \(verdict.violations.map(verdict.describe)); rerun: livesim judge Traces/real/\(file)"
        )
    }
}
